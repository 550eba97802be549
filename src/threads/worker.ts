/**
 * src/threads/: the worker thread's side — runs one ThreadCall. The module it names must lie
 * under src/ (task.ts taskModuleUrl) and export the function in its `threadTasks` under that
 * name (an entry that names itself so, made by defineThreadTasks): no other code runs from a call.
 */
import { TASK_TABLE_EXPORT, taskModuleUrl, toThrownData, type ThreadCall, type ThreadTask } from './task.ts';

export default async function runThreadCall(call: ThreadCall): Promise<unknown> {
  const url = taskModuleUrl(call?.module);
  if (!url) throw new Error(`not a thread task: ${JSON.stringify(call?.module)} is not a module under src/`);
  const table = ((await import(url.href)) as Record<string, unknown>)[TASK_TABLE_EXPORT] as Record<string, ThreadTask> | undefined;
  const task = table && typeof call.name === 'string' && Object.prototype.hasOwnProperty.call(table, call.name) ? table[call.name] : undefined;
  if (!task || task.module !== call.module || task.name !== call.name || typeof task.run !== 'function') {
    throw new Error(`not a thread task: ${call.module} exports no ${JSON.stringify(call.name)} in its ${TASK_TABLE_EXPORT}`);
  }
  try {
    return await (call.params === undefined ? task.run(call.input) : task.run(call.input, call.params));
  } catch (e) {
    // A plain object survives the structured clone whole (an Error would lose its class and code).
    throw toThrownData(e);
  }
}
