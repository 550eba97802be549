import type { Db, JobRow } from '../../store/index.ts';
import type { Coverage, SceneSelection, Warning } from '../../contract/schemas.ts';
import { TRANSITIONS } from '../stateMachine.ts';
import { priceMicros } from '../credits.ts';
import { settleCredits } from '../credits/settleCredits.ts';
import { addDays, isoNow } from '../../time.ts';
import { lockJobAccount } from './lockAccount.ts';
import { recordTerminalEvent } from '../outbox.ts';

export interface CompletionFacts {
  resultKey: string;
  areaSqkm: number;
  lat: number | null;
  lon: number | null;
  coverage: Coverage | null;
  sceneSelection: SceneSelection | null;
  warnings: Warning[];
  pricePerSqkm: number;
  retentionDays: number;
  /** The job's quicklook objects and map layer (kept and deleted with the result), those that were made. */
  quicklook?: {
    key: string | null;
    overlay: { key: string; bounds: [number, number, number, number] } | null;
    /** A time series' map layer (GeoJSON of its cells and their deviation). */
    mapLayer?: { key: string } | null;
  } | null;
}

/**
 * processing → completed for the worker holding the lease, and settles credits: the
 * reservation is released and the actual `area_sqkm` charged, capped at the reservation
 * (the reservation is the most a job can cost).
 */
export async function completeJob(db: Db, jobId: string, workerId: string, facts: CompletionFacts): Promise<JobRow | null> {
  return db.transaction().execute(async (tx) => {
    if (!(await lockJobAccount(tx, jobId))) return null;
    const now = isoNow();
    const current = await tx.selectFrom('jobs').select(['credits_reserved_micros']).where('id', '=', jobId).executeTakeFirst();
    if (!current) return null;
    const charge = Math.min(priceMicros(facts.areaSqkm, facts.pricePerSqkm), Number(current.credits_reserved_micros));
    const row = await tx
      .updateTable('jobs')
      .set({
        status: TRANSITIONS.complete.to,
        completed_at: now,
        updated_at: now,
        progress: 100,
        result_key: facts.resultKey,
        quicklook_key: facts.quicklook?.key ?? null,
        overlay_key: facts.quicklook?.overlay?.key ?? null,
        overlay_bounds: facts.quicklook?.overlay ? JSON.stringify(facts.quicklook.overlay.bounds) : null,
        map_layer_key: facts.quicklook?.mapLayer?.key ?? null,
        result_expires_at: addDays(now, facts.retentionDays),
        area_sqkm: facts.areaSqkm,
        lat: facts.lat,
        lon: facts.lon,
        coverage: facts.coverage ? JSON.stringify(facts.coverage) : null,
        scene_selection: facts.sceneSelection ? JSON.stringify(facts.sceneSelection) : null,
        warnings: JSON.stringify(facts.warnings),
        credits_used_micros: charge,
        lease_owner: null,
        lease_expires_at: null,
      })
      .where('id', '=', jobId)
      .where('status', 'in', [...TRANSITIONS.complete.from])
      .where('lease_owner', '=', workerId)
      .returningAll()
      .executeTakeFirst();
    if (!row) return null;
    await settleCredits(tx, row, charge);
    await recordTerminalEvent(tx, row);
    return row;
  });
}
