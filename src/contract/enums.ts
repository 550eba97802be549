/** Detection types that can be submitted (spec: "What the service does", item 2). */
export const SUBMITTABLE_ENDPOINTS = ['ship', 'oilslick', 'newbuilding', 'disappearbuilding', 'timeseries'] as const;
export type SubmittableEndpoint = (typeof SUBMITTABLE_ENDPOINTS)[number];

/** Every job type, including `idlefarm`, which exists as a job type but has no submission route. */
export const ENDPOINT_IDS = [...SUBMITTABLE_ENDPOINTS, 'idlefarm'] as const;
export type EndpointId = (typeof ENDPOINT_IDS)[number];

export const FAMILIES = ['analyze', 'detect'] as const;
export type Family = (typeof FAMILIES)[number];

export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** ship/oilslick take a scene or polygon+date; the other three take polygon+period. */
export const SCENE_ENDPOINTS = ['ship', 'oilslick'] as const;
export const PERIOD_ENDPOINTS = ['newbuilding', 'disappearbuilding', 'timeseries'] as const;
export type SceneEndpoint = (typeof SCENE_ENDPOINTS)[number];
export type PeriodEndpoint = (typeof PERIOD_ENDPOINTS)[number];

export function isSceneEndpoint(e: string): e is SceneEndpoint {
  return (SCENE_ENDPOINTS as readonly string[]).includes(e);
}

export const SCOPES = ['jobs:read', 'jobs:write', 'uploads:write'] as const;
export type Scope = (typeof SCOPES)[number];

export const WARNING_CODES = ['LOW_AOI_COVERAGE', 'CREDITS_NOT_ESTIMABLE', 'PERIOD_PARTIALLY_COVERED'] as const;
