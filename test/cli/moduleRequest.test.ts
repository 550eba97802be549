/**
 * `sarwatch analyze` hands the endpoint's module a job's request: where the CLI has no flag, the
 * job's default. A ship run takes the near-shore path as a ship job without
 * `near_shore_detection` does (docreview found the CLI ran without it); no other endpoint gets it.
 */
import { describe, expect, it } from 'vitest';
import { moduleRequest } from '../../src/cli/analyze.ts';
import { NEAR_SHORE_DETECTION_DEFAULT } from '../../src/contract/bodies.ts';
import { ENDPOINTS } from '../../src/endpoints/index.ts';
import type { ResolvedInput } from '../../src/analysis/port.ts';

// An opaque token: the request passes it through untouched.
const input = { kind: 'scene', scenes: [] } as unknown as ResolvedInput;

describe('analyze: the module request', () => {
  it('ship carries the job default near-shore path (on); the other endpoints carry none', () => {
    expect(NEAR_SHORE_DETECTION_DEFAULT).toBe(true);
    for (const endpoint of ENDPOINTS) {
      const r = moduleRequest(endpoint, { family: 'detect', input }, 1024);
      expect(r).toMatchObject({ jobId: 'cli', endpointId: endpoint.id, maxRequestBytes: 1024 });
      expect(r.input).toBe(input);
      if (endpoint.id === 'ship') expect(r.nearShore).toBe(true);
      else expect('nearShore' in r).toBe(false);
    }
  });
});
