/**
 * The stack a scene belongs to: the acquisitions of the same track (relative orbit, direction,
 * overlapping along-track frame: samePathFrame) before it — what a ship job compares its
 * detections with to tell fixed structures from ships (issue 23 §3).
 */
import type { SceneCatalog } from './port.ts';
import { isSamePass } from './query.ts';
import { samePathFrame } from './selection.ts';
import type { SceneRecord } from './types.ts';

const DAY_MS = 86_400_000;

/**
 * The scene's earlier acquisitions of its track and product type that overlap its footprint,
 * newest first: at most `limit`, starting at most `days` before it; other versions of its own
 * pass are not earlier acquisitions. [] when the catalog does not know the scene.
 */
export async function earlierOfTrack(catalog: SceneCatalog, sceneId: string, { limit, days }: { limit: number; days: number }): Promise<SceneRecord[]> {
  const scene = await catalog.get(sceneId);
  if (!scene) return [];
  const t = Date.parse(scene.startTime);
  const found = await catalog.search({
    intersects: scene.footprint,
    start: new Date(t - days * DAY_MS),
    end: new Date(t - 1),
    productTypes: [scene.productType],
    orbitDirection: scene.orbitDirection,
  });
  return found
    .filter((r) => r.sceneId !== scene.sceneId && Date.parse(r.startTime) < t && samePathFrame(scene, r) && !isSamePass(scene, r))
    .reverse()
    .slice(0, limit);
}
