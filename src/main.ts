import './production-mode.js';
import { ConfigError } from './config/config-error.js';
import { loadConfig, type Config } from './config/config.js';
import { limitHeapGrowth } from './heap-growth.js';
import { keyRingFrom, type KeyRing } from './keys/key-ring.js';
import type { RunningServer } from './server.js';
import { startTracingIfWanted } from './telemetry/start.js';

/** Once the listener has closed, how long requests in flight get to finish before their connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

/** `npm start`: one clear line and exit 1 for a bad configuration or an unreachable database, before listening. */
async function main(): Promise<void> {
  let config: Config;
  let keyRing: KeyRing;
  try {
    config = loadConfig();
    // Checked before anything listens: a MySQL store with no key-encryption key is refused here, and an SQLite store
    // with none gets its generated key file now rather than at the first id_token.
    keyRing = keyRingFrom(config.keyEncryption);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`schoolgate: configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  limitHeapGrowth(config.heapGrowingPercent);
  // Tracing (docs/operations.md) starts before the server's modules load, so its instrumentations patch them.
  const tracing = await startTracingIfWanted(process.env);
  const { startServer, StartupError } = await import('./server.js');

  let running: RunningServer;
  try {
    running = await startServer(config);
  } catch (error) {
    if (error instanceof StartupError) {
      process.stderr.write(`schoolgate: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const { logger, listeningOn } = running;
  // Handlers go in before anything announces the server, so a supervisor reacting to the banner cannot race them.
  // The first signal drains (docs/deployment.md, Draining); a second one ends the drain delay at once, in-flight
  // requests still finishing within the grace.
  let shuttingDown = false;
  const shutDown = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      logger.info({ signal }, 'second signal: closing the listener now');
      running.endDrain();
      return;
    }
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    running
      .stop(SHUTDOWN_GRACE_MS, { drainSeconds: config.drainSeconds })
      // The spans still buffered are exported before the process ends.
      .then(() => tracing?.shutdown())
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => shutDown(signal));
  if (keyRing.generated?.created) logger.info({ keyEncryptionKeyFile: keyRing.generated.file }, 'generated a key-encryption key for the signing keys (docs/signing-keys.md)');
  logger.info({ listeningOn, metricsOn: running.metricsOn, variant: config.variant, demoOrigin: config.publicOrigin }, 'listening');
  // The human-readable banner goes to stderr so stdout stays one JSON log line per event.
  process.stderr.write(
    `\nschoolgate (variant ${config.variant}) is listening on ${listeningOn}\n` +
      `  demo school: ${config.publicOrigin}   demo logins and clients: docs/demo.md\n\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`schoolgate: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
