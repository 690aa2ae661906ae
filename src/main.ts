import './production-mode.js';
import { ConfigError } from './config/config-error.js';
import { loadConfig, type Config } from './config/config.js';
import { limitHeapGrowth } from './heap-growth.js';
import { keyRingFrom, type KeyRing } from './keys/key-ring.js';
import { startServer, StartupError } from './server.js';

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

  let running;
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
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down: finishing in-flight requests');
      running
        .stop()
        .then(() => {
          logger.info('stopped');
          process.exit(0);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        });
    });
  }
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
