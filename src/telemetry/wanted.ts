/**
 * Whether the standard OTEL_* settings (OpenTelemetry SDK environment variable specification) ask for traces: an
 * OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or a traces exporter
 * (OTEL_TRACES_EXPORTER other than `none`), and not OTEL_SDK_DISABLED=true. Nothing set: tracing stays off and no
 * module of the SDK is loaded.
 */
export function tracingWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  // As the SDK reads it: `none` first means no traces.
  if (exporters.length > 0) return exporters[0] !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}
