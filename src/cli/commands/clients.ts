import type { Command } from 'commander';
import type { OAuthClient } from '../../clients/clients.js';
import { CliError, table, withDatabase, type CommandResult } from '../runtime.js';
import type { Runner } from '../program.js';

function clientJson(client: OAuthClient) {
  return {
    clientId: client.clientId,
    name: client.name,
    audience: client.audience,
    confidential: client.confidential,
    tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
    scopes: client.scopes,
    redirectUris: client.redirectUris,
    kind: client.kind,
    reviewed: client.reviewed,
    createdAt: client.createdAt.toISOString(),
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

interface CreateOptions {
  site: string;
  name: string;
  audience: string;
  confidential?: boolean;
  scope: string[];
  redirectUri: string[];
}

export function registerClientCommands(program: Command, run: Runner): void {
  const client = program.command('client').description('OAuth clients of a site');

  client
    .command('create')
    .description('create an OAuth client; a confidential one gets a secret, printed once')
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .requiredOption('--name <name>', 'application name shown on the consent page')
    .requiredOption('--audience <member|operator>', 'member: account:* scopes for a member app; operator: admin API scopes')
    .option('--confidential', 'confidential client (client_secret_post); default: public (none + PKCE S256)')
    .option('--scope <scopes>', 'scope(s), space-separated; repeatable', collect, [])
    .option('--redirect-uri <uri>', 'redirect URI (exact match); repeatable', collect, [])
    .action(
      run(async (options: CreateOptions): Promise<CommandResult> => {
        if (options.audience !== 'member' && options.audience !== 'operator') throw new CliError('--audience must be member or operator', 'invalid_argument', 2);
        const audience = options.audience;
        const [{ createClient }, { parseScopeString }, { requireSiteByOrigin }] = await Promise.all([
          import('../../clients/clients.js'),
          import('../../clients/scopes.js'),
          import('../../sites/sites.js'),
        ]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const { client: created, clientSecret } = await createClient(db, site.id, {
            name: options.name,
            audience,
            confidential: Boolean(options.confidential),
            scopes: options.scope.flatMap(parseScopeString),
            redirectUris: options.redirectUri,
          });
          const lines = [`created ${created.confidential ? 'confidential' : 'public'} ${created.audience} client "${created.name}" at ${site.origin}`, `  client_id:     ${created.clientId}`];
          if (clientSecret) lines.push(`  client_secret: ${clientSecret}`, '  (the secret is shown only now; store it safely)');
          return { text: lines.join('\n'), data: { ...clientJson(created), clientSecret } };
        });
      }),
    );

  client
    .command('list')
    .description("list a site's OAuth clients")
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .action(
      run(async (options: { site: string }): Promise<CommandResult> => {
        const [{ listClients }, { requireSiteByOrigin }] = await Promise.all([import('../../clients/clients.js'), import('../../sites/sites.js')]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const clients = await listClients(db, site.id);
          return {
            text:
              clients.length === 0
                ? `(no clients at ${site.origin})`
                : table([['CLIENT_ID', 'NAME', 'AUDIENCE', 'AUTH', 'SCOPES'], ...clients.map((one) => [one.clientId, one.name, one.audience, one.tokenEndpointAuthMethod, one.scopes.join(' ')])]),
            data: clients.map(clientJson),
          };
        });
      }),
    );

  client
    .command('rotate-secret')
    .description("replace a confidential client's secret (the old one stops working at once); prints the new one once")
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .requiredOption('--client-id <id>', 'the client')
    .action(
      run(async (options: { site: string; clientId: string }): Promise<CommandResult> => {
        const [{ rotateClientSecret }, { requireSiteByOrigin }] = await Promise.all([import('../../clients/clients.js'), import('../../sites/sites.js')]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const { client: rotated, clientSecret } = await rotateClientSecret(db, site.id, options.clientId);
          return {
            text: `new secret for ${rotated.clientId}:\n  client_secret: ${clientSecret}\n  (shown only now)`,
            data: { ...clientJson(rotated), clientSecret },
          };
        });
      }),
    );
}
