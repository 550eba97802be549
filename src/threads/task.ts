/**
 * src/threads/: functions that run on a worker thread, named by the module that exports them;
 * imports nothing of the project.
 *
 * A module whose functions may run on a thread exports them in its own small table,
 * `export const threadTasks = defineThreadTasks(import.meta.url, { … })`. Each entry is a
 * ThreadTask: the function itself (called directly on this thread) and its address — the
 * module's path under src/ and the function's name — which is what crosses to a thread or a
 * queue (a ThreadCall: plain data). The worker thread (worker.ts) imports the module the call
 * names, only under src/, and runs the entry of its `threadTasks` that names itself so. A pool
 * thus imports none of the modules whose tasks it runs: the caller hands it the task.
 */

/** A function a thread may run: its input, and optionally parameters. */
export type TaskFn = (input: any, params?: any) => unknown;

/** A function of a module's `threadTasks`, with its address. */
export interface ThreadTask<F extends TaskFn = TaskFn> {
  /** The exporting module's path under src/ (`analysis/ship/tile.ts`): the same on every machine. */
  readonly module: string;
  /** Its key in the module's `threadTasks`. */
  readonly name: string;
  /** The function, for a call on this thread. */
  readonly run: F;
}

/** One call as it crosses to a thread or through a queue: structured-cloneable data only. */
export interface ThreadCall {
  module: string;
  name: string;
  input: unknown;
  params?: unknown;
}

/** What a task gives (an async task: what its promise gives). */
export type TaskResult<F extends TaskFn> = Awaited<ReturnType<F>>;

/** The name every task module exports its table under: the worker thread looks for nothing else. */
export const TASK_TABLE_EXPORT = 'threadTasks';

/** src/, the only place a thread loads task modules from (build/ when the code runs precompiled: bin/build-src.js). */
export const SRC_ROOT = new URL('../', import.meta.url);
/** The running modules' extension: `.ts` in src/, `.js` in build/. A task's address always names the `.ts` source. */
const RUNNING_EXT = import.meta.url.endsWith('.js') ? '.js' : '.ts';

/** A module path under src/: folders and a file name of word characters and dashes, ending .ts (no `..`, no absolute path). */
const MODULE_PATH = /^[\w-]+(\/[\w-]+)*\.ts$/;

/** The file URL of a task module named by its path under src/, or null when the path is not one of a module under src/. */
export function taskModuleUrl(module: unknown): URL | null {
  if (typeof module !== 'string' || !MODULE_PATH.test(module)) return null;
  const url = new URL(module.slice(0, -'.ts'.length) + RUNNING_EXT, SRC_ROOT);
  return url.protocol === 'file:' && url.href.startsWith(SRC_ROOT.href) ? url : null;
}

/** A module's table of thread tasks: `moduleUrl` is its own `import.meta.url`, which must lie under src/. */
export function defineThreadTasks<T extends Record<string, TaskFn>>(moduleUrl: string, fns: T): { readonly [K in keyof T]: ThreadTask<T[K]> } {
  const href = new URL(moduleUrl).href;
  const module = href.startsWith(SRC_ROOT.href) ? decodeURIComponent(href.slice(SRC_ROOT.href.length)).replace(/\.js$/, '.ts') : '';
  if (!taskModuleUrl(module)) throw new Error(`thread tasks must be exported by a module under src/, not ${moduleUrl}`);
  const table: Record<string, ThreadTask> = {};
  for (const [name, run] of Object.entries(fns)) table[name] = Object.freeze({ module, name, run });
  return Object.freeze(table) as { readonly [K in keyof T]: ThreadTask<T[K]> };
}

/** A call of a task as its caller writes it: the task (function and address), its input and parameters, checked at compile time. */
export interface TaskCall<F extends TaskFn> {
  task: ThreadTask<F>;
  input: Parameters<F>[0];
  params?: Parameters<F>[1];
}

/** The call as it crosses to a thread (the function stays here: its address goes). */
export function threadCall<F extends TaskFn>({ task, input, params }: TaskCall<F>): ThreadCall {
  return params === undefined ? { module: task.module, name: task.name, input } : { module: task.module, name: task.name, input, params };
}

/**
 * An error as it crosses back from a thread or through a queue: structured cloning keeps only an
 * Error's message (and a standard name), not a project error's class or `code`, so a thread
 * throws this plain object instead and the caller's side revives the error class from it.
 */
export interface ThrownData {
  readonly sarwatchThreadError: true;
  name: string;
  message: string;
  code?: string;
  stack?: string;
}

export function toThrownData(error: unknown): ThrownData {
  const e = error instanceof Error ? error : new Error(String(error));
  const code = (e as { code?: unknown }).code;
  return { sarwatchThreadError: true, name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}), ...(e.stack ? { stack: e.stack } : {}) };
}

export function isThrownData(value: unknown): value is ThrownData {
  return typeof value === 'object' && value !== null && (value as { sarwatchThreadError?: unknown }).sarwatchThreadError === true;
}
