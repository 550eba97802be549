/**
 * Every function the analysis pool may run on a worker thread, by name. The pool imports
 * this table's type (task names, inputs and results are checked at compile time); the
 * worker thread imports its values. A task is a name in this table, never a file path. A task
 * may be async (the pool awaits it): the ship's scene-tile tasks read their tile on the thread.
 */
import { detectShipsInTile, detectShipsInTileWithSources } from '../ship/tile.ts';
import { detectShipsInSceneTile, detectShipsInSceneTileWithSources } from '../ship/sceneTile.ts';
import { detectSlicksInTile } from '../oilslick/tile.ts';
import { detectSlicksInSceneTile } from '../oilslick/sceneTile.ts';
import { detectChangeTileTask } from '../change/tile.ts';
import { renderQuicklook } from '../quicklook/render.ts';
import { renderDeviationMap } from '../quicklook/deviationMap.ts';
import { holdUntilReleased, sumOnWorker } from './selfTest.ts';

export const TILE_TASKS = {
  detectShipsInTile,
  detectShipsInTileWithSources,
  detectShipsInSceneTile,
  detectShipsInSceneTileWithSources,
  detectSlicksInTile,
  detectSlicksInSceneTile,
  detectChangeTileTask,
  renderQuicklook,
  renderDeviationMap,
  sumOnWorker,
  holdUntilReleased,
} as const;

type Tasks = typeof TILE_TASKS;
export type TileTaskName = keyof Tasks;

/** One call: the task's name, its first argument and (optionally) its second. */
export type TileTask<N extends TileTaskName = TileTaskName> = N extends TileTaskName
  ? { name: N; input: Parameters<Tasks[N]>[0]; params?: Parameters<Tasks[N]>[1] }
  : never;

/** What a task returns (an async task, e.g. one that reads its own tile: what its promise gives). */
export type TileTaskResult<N extends TileTaskName> = Awaited<ReturnType<Tasks[N]>>;

export function isTileTaskName(name: unknown): name is TileTaskName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(TILE_TASKS, name);
}
