import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import type { Config } from './config/config.js';
import { openDatabase, type Database } from './db/connection.js';
import { MigrationLockTimeout, migrateToLatest } from './db/migrate.js';
import { seedDemoSchoolIfEmpty } from './demo/demo-school.js';
import { startPruneJob } from './housekeeping/interval-job.js';
import { createLogger, type Logger } from './shared/logger.js';

export interface RunningServer {
  server: http.Server;
  db: Database;
  logger: Logger;
  /** http://host:port the socket is bound to. */
  listeningOn: string;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the database pool. */
  stop(graceMs?: number): Promise<void>;
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

/** A failed listen as the one line start-up prints: what was asked, what went wrong, what to change. */
function listenError(error: unknown, config: Config): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `port ${config.port} on ${config.host ?? 'every interface'}`;
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError(`${where} is already in use (another schoolgate, or another server?); stop it or set PORT to a free port`);
    case 'EACCES':
    case 'EPERM':
      return new StartupError(`permission denied to listen on ${where}; ports below 1024 need privileges: set PORT to 1024 or above`);
    case 'EADDRNOTAVAIL':
      return new StartupError(`HOST ${config.host ?? ''} is not an address of this machine; set HOST to one of its addresses, or leave it empty for all`);
    default:
      return new StartupError(`cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Opens and migrates the database, seeds the demo school into an empty one, and listens. */
export async function startServer(config: Config, options: { logger?: Logger; db?: Database } = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = options.db ?? openDatabase(config.database, (message) => logger.warn({ component: 'knex' }, message));
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

  const app = createApp({ config, db, logger });
  const server = http.createServer(app.callback());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    if (!options.db) await db.destroy();
    throw listenError(error, config);
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? (address.address === '::' ? 'localhost' : `[${address.address}]`) : address.address === '0.0.0.0' ? 'localhost' : address.address;
  // Housekeeping off the request path (docs/housekeeping.md); SCHOOLGATE_PRUNE_INTERVAL_SECONDS=0 leaves it to the CLI.
  const pruneJob = config.prune.intervalSeconds > 0 ? startPruneJob(db, logger, config.prune) : undefined;
  let stopping: Promise<void> | undefined;

  return {
    server,
    db,
    logger,
    listeningOn: `http://${host}:${address.port}`,
    stop(graceMs = 10000) {
      stopping ??= (async () => {
        const jobStopped = pruneJob?.stop();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        await closed;
        clearTimeout(force);
        await jobStopped;
        if (!options.db) await db.destroy();
      })();
      return stopping;
    },
  };
}
