import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/connection.js';

/** knex's connection pool (tarn), as far as the gauges read it. */
interface PoolView {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/**
 * The process's Prometheus metrics (docs/operations.md, "Metrics"), in a registry of its own so that several servers in
 * one process (the tests) never share counters. Counting is always on (a few increments per request); the numbers are
 * only served where METRICS_PORT opens the metrics listener (src/metrics/metrics-server.ts).
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'schoolgate_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'schoolgate_http_request_duration_seconds',
    help: 'Time from receiving a request to its answer, by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'schoolgate_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate limit, by route template.',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });

  readonly tokenRequests = new Counter({
    name: 'schoolgate_token_requests_total',
    help: 'Token endpoint requests by grant type and outcome (issued, or the OAuth error code).',
    labelNames: ['grant_type', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly mcpToolCalls = new Counter({
    name: 'schoolgate_mcp_tool_calls_total',
    help: 'MCP tools/call requests by tool and outcome (ok, or the tool error code).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly deprecatedUses = new Counter({
    name: 'schoolgate_deprecated_uses_total',
    help: 'Calls that used a deprecated element, by API (graphql or admin) and element (schema coordinate or operationId); the clients are in the deprecation usage report.',
    labelNames: ['api', 'element'] as const,
    registers: [this.registry],
  });

  readonly logoutDeliveries = new Counter({
    name: 'schoolgate_logout_deliveries_total',
    help: 'Back-channel logout notice attempts by outcome (delivered, retry, abandoned).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(db: Database, options: { processMetrics?: boolean } = {}) {
    const pool = () => (db.client as { pool?: PoolView }).pool;
    const poolGauge = (name: string, help: string, read: (view: PoolView) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          const view = pool();
          this.set(view ? read(view) : 0);
        },
      });
    poolGauge('schoolgate_db_pool_connections_in_use', 'Database connections lent out by the pool now.', (view) => view.numUsed());
    poolGauge('schoolgate_db_pool_connections_idle', 'Open database connections waiting in the pool now.', (view) => view.numFree());
    poolGauge('schoolgate_db_pool_pending_acquires', 'Requests waiting for a database connection now.', (view) => view.numPendingAcquires());
    if (options.processMetrics) collectProcessMetrics(this.registry);
  }
}

/**
 * prom-client's gauges whose names end in `_total`, a suffix Prometheus keeps for counters; the same numbers by type
 * are in `nodejs_active_handles`, `nodejs_active_requests` and `nodejs_active_resources` (sum them for the total).
 */
export const GAUGES_NAMED_LIKE_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const;

/**
 * Node's own process metrics (CPU, resident memory, heap, event-loop delay, garbage collection) under their standard
 * names (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`, …), without the product's prefix, so the usual
 * Node.js dashboards and alerts read them as they are; only for a process that serves them.
 */
function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
}
