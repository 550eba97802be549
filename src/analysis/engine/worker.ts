/**
 * Worker-thread side of the analysis pool: runs one task of the table in tasks.ts. The
 * function gets plain data and typed arrays and returns the same, so tiles move between
 * threads without serialising pixels (transferred buffers).
 */
import { isTileTaskName, TILE_TASKS, type TileTask } from './tasks.ts';

export default function runTileTask(task: TileTask): unknown {
  if (!isTileTaskName(task?.name)) throw new Error('unknown tile task');
  const fn = TILE_TASKS[task.name] as (input: unknown, params?: unknown) => unknown;
  return task.params === undefined ? fn(task.input) : fn(task.input, task.params);
}
