import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { idleConnectionSweeper } from './http/drain.js';
import { watchDatabaseHealth } from './http/health.js';
import { createMetricsServer } from './metrics/metrics-server.js';
import { createServices } from './services.js';
import type { Config } from './config/config.js';
import { openDatabase, type Database } from './db/connection.js';
import { MigrationLockTimeout, migrateToLatest } from './db/migrate.js';
import { seedDemoSchoolIfEmpty } from './demo/demo-school.js';
import { startPruneJob } from './housekeeping/interval-job.js';
import { startUsageFlushJob } from './housekeeping/usage-flush-job.js';
import { startLogoutDeliveryJob } from './oauth/logout/delivery-job.js';
import { createLogger, type Logger } from './shared/logger.js';

export interface RunningServer {
  server: http.Server;
  db: Database;
  logger: Logger;
  /** http://host:port the socket is bound to. */
  listeningOn: string;
  /** http://host:port/metrics when METRICS_PORT opened the metrics listener. */
  metricsOn: string | null;
  /**
   * Drains and stops: /readyz answers 503 and every answer says `Connection: close` at once; the listener stays open
   * for `drainSeconds` (0 unless given), then closes; in-flight requests get `graceMs` more to finish (10 s unless
   * given); then the background jobs stop, the usage counts are written and the database pool closes.
   */
  stop(graceMs?: number, options?: StopOptions): Promise<void>;
  /** Cuts the drain delay of a stop under way short (a second signal): the listener closes now. */
  endDrain(): void;
}

export interface StopOptions {
  /** Seconds the listener stays open once the drain begins, for load balancers to see /readyz 503 (SCHOOLGATE_DRAIN_SECONDS). */
  drainSeconds?: number;
}

export class StartupError extends Error {
  override readonly name = 'StartupError';
}

function describeDatabase(config: Config): string {
  const { database } = config;
  return database.client === 'sqlite' ? `sqlite:${database.filename}` : `mysql://${database.user}@${database.host}:${database.port}/${database.database}`;
}

async function ensureReachable(db: Database, config: Config): Promise<void> {
  try {
    await db.raw('select 1');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StartupError(`cannot reach the database ${describeDatabase(config)}: ${reason}`);
  }
}

interface ListenTarget {
  port: number;
  host: string | undefined;
  /** The settings that chose them, for the message: PORT/HOST or METRICS_PORT/METRICS_HOST. */
  portVariable: string;
  hostVariable: string;
}

/** A failed listen as the one line start-up prints: what was asked, what went wrong, what to change. */
function listenError(error: unknown, target: ListenTarget): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `port ${target.port} on ${target.host ?? 'every interface'}`;
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError(`${where} is already in use (another schoolgate, or another server?); stop it or set ${target.portVariable} to a free port`);
    case 'EACCES':
    case 'EPERM':
      return new StartupError(`permission denied to listen on ${where}; ports below 1024 need privileges: set ${target.portVariable} to 1024 or above`);
    case 'EADDRNOTAVAIL':
      return new StartupError(`${target.hostVariable} ${target.host ?? ''} is not an address of this machine; set ${target.hostVariable} to one of its addresses, or leave it empty for all`);
    default:
      return new StartupError(`cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Listens, turning a failure into the one-line StartupError. */
async function listen(server: http.Server, target: ListenTarget): Promise<AddressInfo> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(target.port, target.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    throw listenError(error, target);
  }
  return server.address() as AddressInfo;
}

function urlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? (address.address === '::' ? 'localhost' : `[${address.address}]`) : address.address === '0.0.0.0' ? 'localhost' : address.address;
  return `http://${host}:${address.port}`;
}

/** Opens and migrates the database, seeds the demo school into an empty one, and listens. */
export async function startServer(config: Config, options: { logger?: Logger; db?: Database } = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = options.db ?? openDatabase(config.database, (message) => logger.warn({ component: 'knex' }, message), config.databaseTimeouts);
  try {
    await ensureReachable(db, config);
    const applied = await migrateToLatest(db);
    if (applied.length > 0) logger.info({ applied }, 'database migrated');
    if (config.seedDemo) {
      const report = await seedDemoSchoolIfEmpty(db, config.publicOrigin);
      if (report) logger.info({ origin: report.site.origin }, 'empty database: seeded the demo school');
    }
  } catch (error) {
    if (!options.db) await db.destroy();
    throw error instanceof MigrationLockTimeout ? new StartupError(error.message) : error;
  }

  const services = createServices(config, db, logger);
  // The database's outages are logged once per change of state (docs/operations.md, "Database outages").
  const unwatchDatabaseHealth = watchDatabaseHealth(db, logger);
  const server = http.createServer(createApp(services).callback());
  const idleConnections = idleConnectionSweeper(server);
  const metricsServer = config.metricsPort === null ? null : createMetricsServer(services.metrics);
  let address: AddressInfo;
  let metricsAddress: AddressInfo | null = null;
  try {
    address = await listen(server, { port: config.port, host: config.host, portVariable: 'PORT', hostVariable: 'HOST' });
    if (metricsServer && config.metricsPort !== null) {
      metricsAddress = await listen(metricsServer, { port: config.metricsPort, host: config.metricsHost, portVariable: 'METRICS_PORT', hostVariable: 'METRICS_HOST' });
    }
  } catch (error) {
    if (server.listening) server.close();
    if (!options.db) await db.destroy();
    throw error;
  }
  services.lifecycle.state = 'ready';
  // Housekeeping off the request path (docs/housekeeping.md); SCHOOLGATE_PRUNE_INTERVAL_SECONDS=0 leaves it to the CLI.
  const pruneJob = config.prune.intervalSeconds > 0 ? startPruneJob(db, logger, { ...config.prune, usageRetentionDays: config.usageRetentionDays }) : undefined;
  // Back-channel logout notices leave through the outbox (docs/logout.md), never on a member's request.
  const deliveryJob = config.logoutDeliveryIntervalSeconds > 0 ? startLogoutDeliveryJob(db, logger, { intervalSeconds: config.logoutDeliveryIntervalSeconds, metrics: services.metrics }) : undefined;
  // Usage counts are tallied in memory on requests and written here, never on a member's request (docs/versioning.md).
  const usageFlushJob = startUsageFlushJob(db, logger, { intervalSeconds: config.usageFlushIntervalSeconds });
  let stopping: Promise<void> | undefined;
  let drainCutShort = false;
  let endDrainDelay = () => {};

  return {
    server,
    db,
    logger,
    listeningOn: urlOf(address),
    metricsOn: metricsAddress === null ? null : `${urlOf(metricsAddress)}/metrics`,
    stop(graceMs = 10000, { drainSeconds = 0 }: StopOptions = {}) {
      stopping ??= (async () => {
        // Readiness answers 503 from now on and every answer says Connection: close (src/http/drain.ts), so a load
        // balancer stops sending traffic here and keep-alive clients move their next request to a new connection.
        services.lifecycle.state = 'draining';
        idleConnections.start();
        logger.info({ drainSeconds }, 'draining: /readyz answers 503, the listener stays open for drainSeconds');
        if (drainSeconds > 0 && !drainCutShort) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, drainSeconds * 1000);
            endDrainDelay = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        metricsServer?.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        logger.info({ graceSeconds: graceMs / 1000 }, 'listener closed: finishing in-flight requests');
        const jobStopped = Promise.all([pruneJob?.stop(), deliveryJob?.stop()]);
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        await closed;
        clearTimeout(force);
        idleConnections.stop();
        await jobStopped;
        // After the last request: what it counted is written before the database goes.
        await usageFlushJob.stop();
        unwatchDatabaseHealth();
        if (!options.db) await db.destroy();
      })();
      return stopping;
    },
    endDrain() {
      drainCutShort = true;
      endDrainDelay();
    },
  };
}
