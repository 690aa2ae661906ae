import { register } from 'node:module';
import type { IncomingMessage } from 'node:http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KnexInstrumentation } from '@opentelemetry/instrumentation-knex';
import { KoaInstrumentation, KoaLayerType } from '@opentelemetry/instrumentation-koa';
import { MySQL2Instrumentation } from '@opentelemetry/instrumentation-mysql2';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { turnTracingOn } from '../shared/tracing.js';
import { RequestTraces, samplerFromEnv } from './sampler.js';
import { projectVersion } from './version.js';
import type { Tracing } from './tracing.js';

/** Probes and scrapes answer many times a minute and say nothing about a member's request: no span for them. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

function untracedRequest(request: IncomingMessage): boolean {
  const url = request.url ?? '';
  const query = url.indexOf('?');
  return UNTRACED_PATHS.has(query === -1 ? url : url.slice(0, query));
}

/**
 * The Node SDK with the standard instrumentations, configured by the OTEL_* environment variables (exporter,
 * endpoint, protocol, sampler, batch delays, resource attributes). Traces only: metrics stay on the Prometheus
 * endpoint and logs on stdout.
 */
export function startTracingSdk(): Tracing {
  // The ES modules the server imports (koa's ESM entry) are patched through import-in-the-middle's loader hook; the
  // CommonJS ones (knex, mysql2) through require-in-the-middle, because the SDK starts before they are first required.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: ['koa'] } });
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read by the SDK, take precedence over these.
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'schoolgate', [ATTR_SERVICE_VERSION]: projectVersion() }),
    sampler: new RequestTraces(samplerFromEnv(process.env)),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: untracedRequest }),
      // One span per routed request (the route template), not one per middleware of the stack.
      new KoaInstrumentation({ ignoreLayersType: [KoaLayerType.MIDDLEWARE] }),
      // Queries outside a request (start-up, the housekeeping jobs) make no trace of their own.
      new KnexInstrumentation({ requireParentSpan: true }),
      // The driver would write the bound values (emails, hashes) into the statement it reports: masked instead.
      new MySQL2Instrumentation({ maskStatement: true }),
      new GraphQLInstrumentation({ mergeItems: true, ignoreTrivialResolveSpans: true }),
    ],
  });
  sdk.start();
  turnTracingOn();
  return { shutdown: () => sdk.shutdown() };
}
