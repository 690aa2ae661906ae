import { SpanStatusCode, trace, type Attributes, type AttributeValue, type Span } from '@opentelemetry/api';

/**
 * The spans of our own (token grants, token verification, GraphQL execution), through @opentelemetry/api only. The
 * SDK that records them is started by src/telemetry/ when the OTEL_* settings ask for it (docs/operations.md,
 * "Tracing"); until then every function here returns at its first line, so a request pays one boolean test and
 * allocates nothing for tracing.
 */
let tracingOn = false;

/** Called once by src/telemetry/ after the SDK has registered its tracer provider. */
export function turnTracingOn(): void {
  tracingOn = true;
}

/** Whether spans are being recorded: code that would build something only for a span asks first. */
export function tracingIsOn(): boolean {
  return tracingOn;
}

const tracer = trace.getTracer('schoolgate');

/** What an error is called in `error.type` (OTel semantic conventions): an OAuth error code or the class name. */
function errorTypeOf(error: unknown): string {
  if (error !== null && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    return (error as { name?: unknown }).name === undefined ? 'Error' : String((error as { name?: unknown }).name);
  }
  return 'Error';
}

function failed(span: Span, error: unknown): void {
  const type = errorTypeOf(error);
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** Ends `span` when `result` settles, marking it failed (with `error.type`) when it throws or rejects. */
function endWhenSettled<R>(span: Span, run: () => R): R {
  let result: R;
  try {
    result = run();
  } catch (error) {
    failed(span, error);
    span.end();
    throw error;
  }
  if (result instanceof Promise) {
    return result.then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        failed(span, error);
        span.end();
        throw error;
      },
    ) as R;
  }
  span.end();
  return result;
}

/**
 * Runs `work(a, b)` inside an active span named `name` (so the database spans of the work are its children), or
 * simply runs it while tracing is off. Two fixed arguments instead of a closure: the caller allocates nothing when off.
 */
export function inSpan<A, B, R>(name: string, work: (a: A, b: B) => R, a: A, b: B): R {
  if (!tracingOn) return work(a, b);
  return tracer.startActiveSpan(name, (span) => endWhenSettled(span, () => work(a, b)));
}

/**
 * Runs `work` inside an active span named `name`, for callers that have already asked tracingIsOn() (a closure is
 * allocated for it, so a hot path calls this from a branch taken only while tracing is on).
 */
export function inSpanNow<R>(name: string, work: () => R): R {
  if (!tracingOn) return work();
  return tracer.startActiveSpan(name, (span) => endWhenSettled(span, work));
}

/** Sets an attribute on the active span (a no-op while tracing is off). */
export function annotateSpan(key: string, value: AttributeValue | undefined): void {
  if (!tracingOn || value === undefined) return;
  trace.getActiveSpan()?.setAttribute(key, value);
}

/** Sets attributes on the active span (a no-op while tracing is off). */
export function annotateSpanWith(attributes: Attributes): void {
  if (!tracingOn) return;
  trace.getActiveSpan()?.setAttributes(attributes);
}

/**
 * Names the active span, a request's HTTP server span, after the route template that answered it, as the HTTP
 * semantic conventions name server spans: `http.route` and `{method} {route}` (a no-op while tracing is off).
 */
export function routeActiveSpan(method: string, route: unknown): void {
  if (!tracingOn || typeof route !== 'string') return;
  const span = trace.getActiveSpan();
  if (span === undefined) return;
  span.setAttribute('http.route', route);
  span.updateName(`${method} ${route}`);
}

/** The trace and span ids of the active span, for a log line; undefined while tracing is off or outside a span. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  if (!tracingOn) return undefined;
  const context = trace.getActiveSpan()?.spanContext();
  return context === undefined ? undefined : { traceId: context.traceId, spanId: context.spanId };
}
