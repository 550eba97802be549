import type { Db, MonitorRow } from '../../store/index.ts';
import type { SceneRecord } from '../../catalog/index.ts';

/**
 * (none) → queued: the monitor's run for this scene. The (monitor, scene) primary key is the
 * exactly-once rule: a second claim — another process that saw the same scene, a restart
 * that indexes it again — inserts nothing and gets false.
 */
export async function claimScene(db: Db, m: Pick<MonitorRow, 'id' | 'account_id'>, scene: Pick<SceneRecord, 'sceneId' | 'startTime' | 'orbitDirection'>, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const row = await db
    .insertInto('monitor_runs')
    .values({ monitor_id: m.id, scene_id: scene.sceneId, scene_time: scene.startTime, orbit_direction: scene.orbitDirection, account_id: m.account_id, status: 'queued', created_at: at, updated_at: at })
    .onConflict((oc) => oc.columns(['monitor_id', 'scene_id']).doNothing())
    .returning('monitor_id')
    .executeTakeFirst();
  return row !== undefined;
}
