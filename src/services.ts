import type { Config } from './config/config.js';
import type { Database } from './db/connection.js';
import { Lifecycle } from './http/health.js';
import { Metrics } from './metrics/metrics.js';
import type { Logger } from './shared/logger.js';
import { variantProfile, type VariantProfile } from './variant.js';

/**
 * What every interface is built from: the configuration, the deployment's variant profile, the database, the process
 * logger, its metrics and lifecycle.
 */
export interface Services {
  config: Config;
  /** What this deployment's variant changes, as named capabilities (src/variant.ts). */
  variant: VariantProfile;
  db: Database;
  logger: Logger;
  metrics: Metrics;
  lifecycle: Lifecycle;
}

/** Services for a server: fresh metrics (Node's process metrics only where they are served) and a starting lifecycle. */
export function createServices(config: Config, db: Database, logger: Logger): Services {
  return { config, variant: variantProfile(config.variant), db, logger, metrics: new Metrics(db, { processMetrics: config.metricsPort !== null }), lifecycle: new Lifecycle() };
}
