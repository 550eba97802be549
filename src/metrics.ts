/**
 * Prometheus metrics (`GET /metrics`). One registry per service instance, never prom-client's
 * global default, so several services in one process (the tests) keep separate figures.
 *
 * Jobs by state and queue depth are read from the store at scrape time, so every API
 * process of a deployment reports the same, deployment-wide values; job durations and
 * failures are observed by this process's runner (sum them across workers).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from './store/index.ts';
import { analysisCpu } from './analysis/engine/cpu.ts';

/** What the runner reports when it settles a job it ran. */
export interface JobSettled {
  endpointId: string;
  outcome: 'completed' | 'failed';
  /** The failure's code; null for completed jobs. */
  errorCode: string | null;
  seconds: number;
}

export interface ServiceMetrics {
  readonly registry: Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  observeJob(settled: JobSettled): void;
  /** A job failed by this process without a runner settling it: lease recovery (JOB_INTERRUPTED), a cancel (CANCELED). */
  countFailure(errorCode: string): void;
  /** A webhook delivery attempt this process made: 2xx or not. */
  countWebhookAttempt(ok: boolean): void;
}

export interface MetricsDeps {
  db: Db;
  /** Jobs waiting in the broker (BullMQ); absent in embedded mode, where the store is the queue. */
  brokerDepth?: () => Promise<number>;
}

const UNKNOWN_ENDPOINT = 'none';

export function createMetrics(deps: MetricsDeps): ServiceMetrics {
  const registry = new Registry();

  const http = new Histogram({
    name: 'sarwatch_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  const jobDuration = new Histogram({
    name: 'sarwatch_job_duration_seconds',
    help: 'Time from claim to completion or failure of the jobs this process ran, by endpoint and outcome',
    labelNames: ['endpoint_id', 'outcome'] as const,
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  });

  const failures = new Counter({
    name: 'sarwatch_job_failures_total',
    help: 'Jobs this process failed, by error code: those its runner ran, and interrupted jobs its lease recovery failed (JOB_INTERRUPTED)',
    labelNames: ['error_code'] as const,
    registers: [registry],
  });

  new Gauge({
    name: 'sarwatch_jobs',
    help: 'Jobs in the store by state and endpoint (read at scrape time)',
    labelNames: ['state', 'endpoint_id'] as const,
    registers: [registry],
    async collect() {
      const rows = await deps.db
        .selectFrom('jobs')
        .select(['status', 'endpoint_id', (eb) => eb.fn.countAll().as('n')])
        .groupBy(['status', 'endpoint_id'])
        .execute();
      this.reset();
      // PostgreSQL returns count(*) as a string (int8).
      for (const r of rows) this.set({ state: r.status, endpoint_id: r.endpoint_id ?? UNKNOWN_ENDPOINT }, Number(r.n));
    },
  });

  new Gauge({
    name: 'sarwatch_queue_depth',
    help: 'Pending jobs (waiting for a worker) by endpoint, from the store',
    labelNames: ['endpoint_id'] as const,
    registers: [registry],
    async collect() {
      const rows = await deps.db
        .selectFrom('jobs')
        .where('status', '=', 'pending')
        .select(['endpoint_id', (eb) => eb.fn.countAll().as('n')])
        .groupBy('endpoint_id')
        .execute();
      this.reset();
      for (const r of rows) this.set({ endpoint_id: r.endpoint_id ?? UNKNOWN_ENDPOINT }, Number(r.n));
    },
  });

  const webhookAttempts = new Counter({
    name: 'sarwatch_webhook_attempts_total',
    help: 'Webhook delivery attempts this process made, by outcome (delivered: a 2xx answer; failed: anything else, retried or given up)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  new Gauge({
    name: 'sarwatch_webhook_deliveries',
    help: 'Webhook deliveries in the store by status (pending: waiting for an attempt or a retry), read at scrape time',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const rows = await deps.db.selectFrom('webhook_deliveries').select(['status', (eb) => eb.fn.countAll().as('n')]).groupBy('status').execute();
      this.reset();
      for (const r of rows) this.set({ status: r.status }, Number(r.n));
    },
  });

  new Gauge({
    name: 'sarwatch_monitors',
    help: 'Monitors in the store by state (active, paused, suspended), read at scrape time',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const rows = await deps.db.selectFrom('monitors').select(['state', (eb) => eb.fn.countAll().as('n')]).groupBy('state').execute();
      this.reset();
      for (const r of rows) this.set({ state: r.state }, Number(r.n));
    },
  });

  new Counter({
    name: 'sarwatch_analysis_cpu_seconds_total',
    help: "This process's analysis CPU time by part (each thread's own, Linux only): task_modules (analysis threads loading a tile task's module), tile_tasks (analysis threads running tile tasks, this process's jobs' and, scaled out, other jobs' tiles), merge (merging a job's tile results and building its result)",
    labelNames: ['part'] as const,
    registers: [registry],
    collect() {
      const cpu = analysisCpu();
      this.reset();
      this.inc({ part: 'task_modules' }, cpu.taskModules);
      this.inc({ part: 'tile_tasks' }, cpu.tileTasks);
      this.inc({ part: 'merge' }, cpu.merge);
    },
  });

  const brokerDepth = deps.brokerDepth;
  if (brokerDepth) {
    new Gauge({
      name: 'sarwatch_broker_queue_depth',
      help: 'Deliveries waiting in the BullMQ queue (all endpoints: the broker carries job ids only)',
      registers: [registry],
      async collect() {
        this.set(await brokerDepth());
      },
    });
  }

  return {
    registry,
    observeRequest(method, route, status, seconds) {
      http.observe({ method, route, status: String(status) }, seconds);
    },
    observeJob(s) {
      jobDuration.observe({ endpoint_id: s.endpointId, outcome: s.outcome }, s.seconds);
      if (s.outcome === 'failed') failures.inc({ error_code: s.errorCode ?? 'UNKNOWN' });
    },
    countFailure(errorCode) {
      failures.inc({ error_code: errorCode });
    },
    countWebhookAttempt(ok) {
      webhookAttempts.inc({ outcome: ok ? 'delivered' : 'failed' });
    },
  };
}
