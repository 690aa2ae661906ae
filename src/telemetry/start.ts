import type { Tracing } from './tracing.js';
import { tracingWanted } from './wanted.js';

/**
 * Starts OpenTelemetry tracing when the OTEL_* settings ask for it (docs/operations.md, "Tracing"), else does nothing
 * and loads nothing of the SDK. Called before the server's modules are imported, so the instrumentations patch koa,
 * knex, mysql2 and graphql as they load.
 */
export async function startTracingIfWanted(env: Readonly<Record<string, string | undefined>>): Promise<Tracing | null> {
  if (!tracingWanted(env)) return null;
  const { startTracingSdk } = await import('./sdk.js');
  return startTracingSdk();
}
