// src/threads/: the worker-thread entry point (plain JavaScript) of every pool. Worker threads do not
// inherit the main thread's module loader, so tsx is registered here before any TypeScript loads.
import { register } from 'tsx/esm/api';

register();
const { default: runThreadCall } = await import('./worker.ts');
export default runThreadCall;
