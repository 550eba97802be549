/**
 * Worker-thread entry for tile tasks. A task names a module of src/analysis and one of its
 * exported functions; the function gets plain data and typed arrays and returns the same,
 * so tiles move between threads without serialising pixels (transferred buffers).
 */
const modules = new Map<string, Promise<Record<string, unknown>>>();

export interface TileTask {
  /** Module path relative to src/analysis, e.g. `ship/detect.ts`. */
  module: string;
  fn: string;
  input: unknown;
  params?: unknown;
}

const ALLOWED = /^[a-z]+\/[A-Za-z]+\.ts$/;

export default async function runTileTask(task: TileTask): Promise<unknown> {
  if (!ALLOWED.test(task.module)) throw new Error(`invalid task module ${task.module}`);
  let mod = modules.get(task.module);
  if (!mod) {
    mod = import(new URL(`../${task.module}`, import.meta.url).href) as Promise<Record<string, unknown>>;
    modules.set(task.module, mod);
  }
  const fn = (await mod)[task.fn];
  if (typeof fn !== 'function') throw new Error(`${task.module} has no function ${task.fn}`);
  return (fn as (input: unknown, params: unknown) => unknown)(task.input, task.params);
}
