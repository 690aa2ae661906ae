import { buildDemoDocument, DEMO_CLIENTS } from '../../src/demo/demo-school.js';
import { importSiteDocument } from '../../src/import/import-site.js';
import { createLogger } from '../../src/shared/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createScratchDatabase, type ScratchDatabase } from '../support/databases.js';
import { testConfig } from '../support/server.js';

export interface DemoSchool {
  /** `http://localhost:PORT`: the demo school's origin, its issuer and the `resource` its tokens are bound to. */
  origin: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * The demo school (docs/demo.md) on an in-process server over a scratch SQLite database, on an ephemeral port.
 *
 * The server starts without its own seeding because the origin is only known once it listens; the demo document is
 * then imported at that origin, as `npm start` would have done with PUBLIC_ORIGIN set. `extraMemberRedirectUri` is
 * added to demo-member-app's redirect URIs: the conformance suite's authorization scenario waits for its callback on
 * `http://127.0.0.1:<port>/callback`, and a port of our choosing keeps two runs (or a stray listener on the demo's
 * 8765) from colliding.
 */
export async function startDemoSchool(options: { extraMemberRedirectUri: string }): Promise<DemoSchool> {
  const scratch: ScratchDatabase = await createScratchDatabase('sqlite');
  let running: RunningServer | undefined;
  try {
    const config = testConfig({ seedDemo: false, variant: 'A', database: scratch.config });
    running = await startServer(config, { db: scratch.db, logger: createLogger(config.logLevel) });
    const port = Number(new URL(running.listeningOn).port);
    const origin = `http://localhost:${port}`;
    const document = buildDemoDocument(origin, new Date());
    for (const client of document.oauthClients ?? []) {
      if (client.clientId === DEMO_CLIENTS.member.clientId) client.redirectUris = [...client.redirectUris, options.extraMemberRedirectUri];
    }
    await importSiteDocument(scratch.db, document);
    const server = running;
    return {
      origin,
      port,
      stop: async () => {
        await server.stop(1000);
        await scratch.drop();
      },
    };
  } catch (error) {
    await running?.stop(1000);
    await scratch.drop();
    throw error;
  }
}
