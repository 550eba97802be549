// src/threads/: the worker-thread entry point (plain JavaScript) of every pool; imports only a
// worker module and bin/build-src.js. Copied into build/threads/ beside the precompiled worker.js,
// it runs that. In src/ (the tests, bench/, a command whose build could not be brought up to
// date), it runs build/'s worker when build/ is up to date with src/, so a thread pays no
// TypeScript compiling; otherwise (or with SARWATCH_PRECOMPILED=0) it registers tsx (worker
// threads do not inherit the main thread's module loader) and runs worker.ts. A thread never
// rebuilds: bin/sarwatch.js and the tests' globalSetup do.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Runs build/'s `worker.js`, with its source maps (a task's stack names the src/ .ts line) enabled on this thread. */
function builtWorker(url) {
  process.setSourceMapsEnabled(true);
  return import(url.href);
}

async function workerModule() {
  const beside = new URL('./worker.js', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return builtWorker(beside);
  if (process.env.SARWATCH_PRECOMPILED !== '0') {
    const { freshBuild } = await import('../../bin/build-src.js');
    const { url } = await freshBuild({ rebuild: false });
    if (url) return builtWorker(new URL('threads/worker.js', url));
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import('./worker.ts');
}

const { default: runThreadCall } = await workerModule();
export default runThreadCall;
