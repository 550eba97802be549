// Geometry-thread entry point (plain JavaScript): worker threads do not inherit the main
// thread's module loader, so tsx is registered here before the TypeScript tasks load.
import { register } from 'tsx/esm/api';

register();
const { default: runGeometryTask } = await import('./tasks.ts');
export default runGeometryTask;
