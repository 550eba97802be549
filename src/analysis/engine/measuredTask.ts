/**
 * The analysis pool's wrapper around every tile task (pool.ts): runs the call on the thread as
 * threads/worker.ts does, and hands back with its result the thread's CPU time spent loading the
 * task's module and running the task (cpu.ts), which the calling process adds up. The task's
 * result and errors are the task's own.
 */
import runThreadCall from '../../threads/worker.ts';
import { defineThreadTasks, isThrownData, taskModuleUrl, type ThreadCall } from '../../threads/task.ts';
import { cpuSince, threadCpuSeconds } from './cpu.ts';

export interface Measured {
  value: unknown;
  /** CPU seconds of this thread loading the task's module (0 once it is loaded). */
  moduleCpu: number;
  /** CPU seconds of this thread running the task. */
  taskCpu: number;
}

async function measured(call: ThreadCall): Promise<Measured> {
  const t0 = threadCpuSeconds();
  const url = taskModuleUrl(call?.module);
  // Loaded here first, so its first load is told apart from the task (runThreadCall finds it loaded).
  if (url) await import(url.href).catch(() => {});
  const moduleCpu = cpuSince(t0);
  const t1 = threadCpuSeconds();
  try {
    const value = await runThreadCall(call);
    return { value, moduleCpu, taskCpu: cpuSince(t1) };
  } catch (e) {
    // runThreadCall threw the task's error as plain data; the thread's own wrapper makes that
    // data again from an Error, so the caller revives the task's error class and code as before.
    if (!isThrownData(e)) throw e;
    throw Object.assign(new Error(e.message), { name: e.name, ...(e.code === undefined ? {} : { code: e.code }), ...(e.stack ? { stack: e.stack } : {}) });
  }
}

export const threadTasks = defineThreadTasks(import.meta.url, { measured });
