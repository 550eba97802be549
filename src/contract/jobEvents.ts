/** The data of one event of GET /api/v1/jobs/{job_id}/events (issue 21 §3): what the server sends and the SDK reads. */
import type { JobStatus } from './enums.ts';

export interface JobEventData {
  job_id: string;
  status: JobStatus;
  progress: number | null;
  /** When the change was written (ISO 8601 UTC). */
  at: string;
  /** Terminal status events only: why it failed, and where the result is. */
  error_code?: string | null;
  error_message?: string | null;
  result_path?: string | null;
}
