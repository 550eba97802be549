/**
 * The project's error classes made back from what a pool thread threw or a tile message carried
 * (threads/task.ts ThrownData): an ImageryError or JobFailure keeps its class and code, so a job
 * fails with the same code whether its tile ran here, on a thread or on another worker.
 */
import type { ThrownData } from '../../threads/task.ts';
import { ImageryError, type ImageryErrorCode } from '../../imagery/errors.ts';
import { JobFailure, isJobFailureCode } from '../../contract/errors.ts';

export function reviveError(data: Pick<ThrownData, 'name' | 'message' | 'code' | 'stack'>): Error {
  const code = typeof data.code === 'string' ? data.code : null;
  const e =
    data.name === 'ImageryError' && code
      ? new ImageryError(code as ImageryErrorCode, data.message)
      : data.name === 'JobFailure' && code && isJobFailureCode(code)
        ? new JobFailure(code, data.message)
        : new Error(data.message);
  if (data.stack) e.stack = data.stack;
  return e;
}
