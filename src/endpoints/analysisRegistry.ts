/**
 * Which detector adapter runs for each endpoint_id: by default the one each endpoint
 * descriptor names; tests inject their own. An endpoint without an adapter fails its jobs
 * with NOT_IMPLEMENTED, uncharged — never a made-up result. The adapters' contract is
 * src/analysis/port.ts.
 */
import type { AnalysisModule } from '../analysis/port.ts';
import { ENDPOINTS } from './index.ts';

export type AnalysisRegistry = ReadonlyMap<string, AnalysisModule>;

export function createRegistry(modules: AnalysisModule[]): AnalysisRegistry {
  return new Map(modules.map((m) => [m.endpointId, m]));
}

/** The detectors this build ships: each endpoint descriptor's adapter, loaded when its first job runs. */
export function defaultRegistry(): AnalysisRegistry {
  return createRegistry(
    ENDPOINTS.map((endpoint) => ({
      endpointId: endpoint.id,
      run: async (request, ctx) => (await endpoint.detector()).run(request, ctx),
    })),
  );
}
