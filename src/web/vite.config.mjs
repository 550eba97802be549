// Vite builds the dashboard (src/web) into dist/web, which the API serves at `/` (src/api/dashboard.ts).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const require = createRequire(import.meta.url);
const LAND_ID = 'virtual:sarwatch-land';
const LAND_DEV_PATH = '/@sarwatch/land-50m.json';

/**
 * The offline basemap's land (world-atlas's Natural Earth 1:50m TopoJSON) converted to GeoJSON
 * here, at build time, coordinates rounded to 0.001° (finer than the TopoJSON's own quantum of
0.0036° × 0.0017°, so nothing is lost):
 * a hashed asset the map fetches, so the page never converts the TopoJSON.
 * `import landUrl from 'virtual:sarwatch-land'`.
 */
function landGeoJson() {
  const topo = require('world-atlas/land-50m.json');
  const { feature } = require('topojson-client');
  const land = feature(topo, topo.objects.land);
  const fc = land.type === 'FeatureCollection' ? land : { type: 'FeatureCollection', features: [land] };
  return JSON.stringify(fc, (_k, v) => (typeof v === 'number' ? Math.round(v * 1e3) / 1e3 : v));
}

function landPlugin() {
  let serve = false;
  return {
    name: 'sarwatch-land',
    configResolved(config) {
      serve = config.command === 'serve';
    },
    configureServer(server) {
      server.middlewares.use(LAND_DEV_PATH, (_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(landGeoJson());
      });
    },
    resolveId(source) {
      return source === LAND_ID ? `\0${LAND_ID}` : null;
    },
    load(id) {
      if (id !== `\0${LAND_ID}`) return null;
      if (serve) return `export default ${JSON.stringify(LAND_DEV_PATH)};`;
      const ref = this.emitFile({ type: 'asset', name: 'land-50m.json', source: landGeoJson() });
      return `export default import.meta.ROLLUP_FILE_URL_${ref};`;
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  // No public/ folder: every file served comes out of the bundle, hashed.
  publicDir: false,
  logLevel: 'warn',
  plugins: [landPlugin()],
  // Leaflet's package names its UMD build as main; its ES module build is the one to bundle.
  resolve: { alias: [{ find: /^leaflet$/, replacement: 'leaflet/dist/leaflet-src.esm.js' }] },
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
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
