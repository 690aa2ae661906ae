import { SpanKind, trace, type Attributes, type Context, type Link } from '@opentelemetry/api';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler, type Sampler, type SamplingResult } from '@opentelemetry/sdk-trace-base';

/**
 * The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name (OpenTelemetry SDK environment variables), the
 * SDK's default (`parentbased_always_on`) when unset or unknown.
 */
export function samplerFromEnv(env: Readonly<Record<string, string | undefined>>): Sampler {
  const parsed = Number.parseFloat(env.OTEL_TRACES_SAMPLER_ARG ?? '');
  const ratio = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 1;
  switch (env.OTEL_TRACES_SAMPLER?.trim()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * Traces start at a request (an HTTP server span): a database query, an outgoing call or a schema parse with no span
 * above it (start-up's migrations and schema, the housekeeping and logout delivery jobs) is not recorded, so an idle
 * server sends nothing. Everything else is left to the configured sampler.
 */
export class RequestTraces implements Sampler {
  constructor(private readonly configured: Sampler) {}

  shouldSample(context: Context, traceId: string, spanName: string, spanKind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    if (spanKind !== SpanKind.SERVER && trace.getSpanContext(context) === undefined) return { decision: SamplingDecision.NOT_RECORD };
    return this.configured.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `RequestTraces{${this.configured.toString()}}`;
  }
}
