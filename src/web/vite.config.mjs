// Vite builds the dashboard (src/web) into dist/web, which the API serves at `/` (src/api/dashboard.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  // No public/ folder: every file served comes out of the bundle, hashed.
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // MapLibre alone is ~1 MB minified; it is one immutable, cached file.
    chunkSizeWarningLimit: 2000,
    assetsInlineLimit: 0,
    sourcemap: false,
    // A slow callback on a busy machine is not a problem of the build: no timing warnings.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: {
    // `npm run dev:web`: the dashboard with live reload against a running service.
    proxy: { '/api': 'http://127.0.0.1:8080', '/objects': 'http://127.0.0.1:8080', '/web-config.json': 'http://127.0.0.1:8080' },
  },
});
