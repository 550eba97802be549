#!/usr/bin/env node
// Builds the dashboard (src/web → dist/web) with Vite. `npm install` runs it (the `prepare`
// script), so the README's two commands stay two; `npm run build:web` runs it by hand after
// editing src/web. An install without dev dependencies has no Vite: it says so and builds nothing.
import { fileURLToPath } from 'node:url';

let vite;
try {
  vite = await import('vite');
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
  console.log('sarwatch: Vite is not installed (an install without dev dependencies), so the dashboard is not built; run `npm run build:web` after a full `npm install`.');
  process.exit(0);
}
const started = Date.now();
await vite.build({ configFile: fileURLToPath(new URL('../src/web/vite.config.mjs', import.meta.url)), ...(process.argv[2] ? { build: { outDir: process.argv[2] } } : {}) });
console.log(`sarwatch: dashboard built into ${process.argv[2] ?? 'dist/web'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
