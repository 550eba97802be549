/**
 * Test-only analysis modules that exercise the job lifecycle (completion, charging,
 * retention, crash recovery) independently of any real detector. They are injected by
 * tests through the registry and never shipped in the product registry.
 */
import { MessageChannel } from 'node:worker_threads';
import type { AnalysisModule } from '../../src/analysis/port.ts';
import { runTileTask } from '../../src/analysis/engine/pool.ts';
import { threadTasks } from '../../src/analysis/engine/selfTest.ts';
import { geodesicAreaSqm } from '../../src/geo/index.ts';

/** Returns the analysed extent's outer ring (polygon ∩ imagery, or the scene footprint) as the one "detection". */
export function aoiEchoTestDetector(endpointId: AnalysisModule['endpointId'], opts: { delayMs?: number } = {}): AnalysisModule {
  return {
    endpointId,
    async run(request, ctx) {
      const aoi = request.input.kind === 'scene' ? request.input.scene.footprint : request.input.extent;
      const ring = aoi.type === 'Polygon' ? aoi.coordinates[0] : aoi.coordinates[0][0];
      const polygon = { type: 'Polygon' as const, coordinates: [ring] };
      ctx.reportProgress(50);
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      const xs = ring.map((p) => p[0]);
      const ys = ring.map((p) => p[1]);
      return {
        result: {
          type: 'FeatureCollection',
          bbox: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)],
          features: [{ type: 'Feature', id: 1, geometry: polygon, properties: { area_sqm: geodesicAreaSqm(polygon), confidence: null } }],
        },
      };
    },
  };
}

/** Never finishes until aborted: a job that is "processing" for as long as the test wants. */
export function hangingTestDetector(endpointId: AnalysisModule['endpointId'], opts: { onRunning?: () => void } = {}): AnalysisModule {
  return {
    endpointId,
    run: (_request, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        opts.onRunning?.();
      }),
  };
}

/**
 * Busy on a thread of the analysis pool until its job's signal aborts (the gate is never
 * opened): a job whose analysis runs off the main thread. `onRunning` fires once the task
 * holds its thread.
 */
export function poolHoldingTestDetector(endpointId: AnalysisModule['endpointId'], opts: { onRunning?: () => void } = {}): AnalysisModule {
  return {
    endpointId,
    async run(_request, ctx) {
      const gate = new Int32Array(new SharedArrayBuffer(4));
      const { port1, port2 } = new MessageChannel();
      port1.once('message', () => opts.onRunning?.());
      try {
        await runTileTask({ task: threadTasks.holdUntilReleased, input: { gate, started: port2 } }, [port2], ctx.signal);
      } finally {
        port1.close();
      }
      throw new Error('the holding task ended without an abort');
    },
  };
}

/** Throws an unexpected error: the job must fail with a 5xx-class code and the generic message. */
export function crashingTestDetector(endpointId: AnalysisModule['endpointId']): AnalysisModule {
  return {
    endpointId,
    async run() {
      throw new Error('secret internal path /var/lib/x exploded');
    },
  };
}
