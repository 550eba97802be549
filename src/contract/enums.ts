/**
 * Detection types that can be submitted (spec: "What the service does", item 2), in the order
 * the API lists them; the spec's `idlefarm` included (issue 14). Each has one descriptor in
 * src/endpoints/, whose table must list exactly these, in this order (checked when compiling).
 */
export const SUBMITTABLE_ENDPOINTS = ['ship', 'oilslick', 'newbuilding', 'disappearbuilding', 'timeseries', 'idlefarm'] as const;
export type SubmittableEndpoint = (typeof SUBMITTABLE_ENDPOINTS)[number];

/** Every job type: each is submittable. */
export const ENDPOINT_IDS: readonly EndpointId[] = SUBMITTABLE_ENDPOINTS;
export type EndpointId = SubmittableEndpoint;

export const FAMILIES = ['analyze', 'detect'] as const;
export type Family = (typeof FAMILIES)[number];

export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const SCOPES = ['jobs:read', 'jobs:write', 'uploads:write', 'monitors:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** The spec's three, then sarwatch's (docs/api.md, Job warning codes). */
export const WARNING_CODES = ['LOW_AOI_COVERAGE', 'CREDITS_NOT_ESTIMABLE', 'PERIOD_PARTIALLY_COVERED', 'AZIMUTH_AMBIGUITY_NOT_SUPPRESSED', 'INCIDENCE_ANGLE_ASSUMED', 'FIXED_STRUCTURES_NOT_SEPARATED'] as const;
