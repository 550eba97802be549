// Worker-thread entry point (plain JavaScript): worker threads do not inherit the main
// thread's module loader, so tsx is registered here before the task table (tasks.ts) loads.
import { register } from 'tsx/esm/api';

register();
const { default: runTileTask } = await import('./worker.ts');
export default runTileTask;
