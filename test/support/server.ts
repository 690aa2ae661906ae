import { loadConfig, type Config, type Variant } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createSite, type Site } from '../../src/sites/sites.js';
import { createLogger } from '../../src/shared/logger.js';
import { TEST_ACQUIRE_TIMEOUT_MS, type ScratchDatabase } from './databases.js';
import { TEST_KEY_ENCRYPTION_KEY, useTestKeyEncryptionKey } from './key-encryption.js';

export interface TestServer {
  running: RunningServer;
  port: number;
  /** Two sites on one server: http://localhost:PORT and http://127.0.0.1:PORT (many sites per process). */
  siteA: Site;
  siteB: Site;
  stop(): Promise<void>;
}

/**
 * The configuration of an in-process test server. It also gives this process the tests' key-encryption key, which
 * the signing-key code reads from the environment as `npm start` does (test/support/key-encryption.ts).
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  useTestKeyEncryptionKey();
  return {
    // No prune job unless a test asks for one (test/housekeeping.test.ts): it would delete rows other tests set up.
    // No logout delivery job either: test/logout.test.ts drives the outbox itself.
    // No usage flush timer: the statement-counting tests count every query on the scratch pool, and a flush landing in
    // a counted request adds its own. Usage counts are written when the server stops, or by a test's own flushUses.
    // Every test comes from 127.0.0.1, so the per-address limits on anonymous traffic are lifted except where a test
    // measures them (test/anonymous-limits.test.ts).
    ...loadConfig({
      LOG_LEVEL: process.env.SCHOOLGATE_TEST_LOGS ? 'debug' : 'silent',
      SCHOOLGATE_DEMO: 'false',
      SCHOOLGATE_PRUNE_INTERVAL_SECONDS: '0',
      SCHOOLGATE_LOGOUT_DELIVERY_INTERVAL_SECONDS: '0',
      SCHOOLGATE_USAGE_FLUSH_INTERVAL_SECONDS: '0',
      SCHOOLGATE_AUTHORIZE_LIMIT_PER_MINUTE: '1000000',
      SCHOOLGATE_FAILURE_LIMIT_PER_10_MINUTES: '1000000',
      SCHOOLGATE_KEY_ENCRYPTION_KEY: TEST_KEY_ENCRYPTION_KEY,
      // Tests of behaviour under contention (a hundred refreshes of one token at once) queue far longer on a shared
      // CI machine than the production default allows; the fault tests use the defaults (test/fault-*.test.ts).
      SCHOOLGATE_DB_ACQUIRE_TIMEOUT_MS: String(TEST_ACQUIRE_TIMEOUT_MS),
    }),
    port: 0,
    host: undefined,
    ...overrides,
  };
}

/** A real server on an ephemeral port over the scratch database, with two sites on its two loopback origins. */
export async function startTestServer(scratch: ScratchDatabase, options: { variant?: Variant; trustProxy?: boolean; anonymousLimits?: Config['anonymousLimits'] } = {}): Promise<TestServer> {
  const overrides: Partial<Config> = { variant: options.variant ?? 'A', trustProxy: options.trustProxy ?? false, database: scratch.config };
  if (options.anonymousLimits) overrides.anonymousLimits = options.anonymousLimits;
  const config = testConfig(overrides);
  const running = await startServer(config, { db: scratch.db, logger: createLogger(config.logLevel) });
  const port = Number(new URL(running.listeningOn).port);
  const siteA = await createSite(scratch.db, { origin: `http://localhost:${port}`, name: `Alpha School ${port}`, subdomain: `alpha-${port}` });
  const siteB = await createSite(scratch.db, { origin: `http://127.0.0.1:${port}`, name: `Beta School ${port}`, subdomain: `beta-${port}` });
  return { running, port, siteA, siteB, stop: () => running.stop(1000) };
}
