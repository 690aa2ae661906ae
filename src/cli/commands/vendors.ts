import type { Command } from 'commander';
import type { VendorPlatform } from '../../clients/vendor-platforms.js';
import { table, type CommandResult, type Runner } from '../command-kit.js';
import { withDatabase } from '../runtime.js';

function platformJson(platform: VendorPlatform) {
  return {
    clientName: platform.clientName,
    clientId: platform.client.clientId,
    audience: platform.client.audience,
    tokenEndpointAuthMethod: platform.client.tokenEndpointAuthMethod,
    scopes: platform.client.scopes,
    redirectUris: platform.client.redirectUris,
    createdAt: platform.createdAt.toISOString(),
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

interface AddOptions {
  site: string;
  clientName: string;
  clientId?: string;
  scope: string[];
  redirectUri: string[];
}

/**
 * `schoolgate vendor-platform add|list|remove`: the allowlist of the registration endpoint (spec, Authentication 5).
 * A platform is a public operator client; `POST /api/oauth/register` answers its client_id for its `client_name`.
 */
export function registerVendorPlatformCommands(program: Command, run: Runner): void {
  const vendor = program.command('vendor-platform').description("the registration endpoint's allowlist of vendor platforms (client_name → public operator client)");

  vendor
    .command('add')
    .description('allowlist a vendor platform: creates its public operator client (none + PKCE S256) and the client_name entry')
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .requiredOption('--client-name <name>', 'the client_name the platform sends (matched trimmed and case-insensitively)')
    .option('--client-id <id>', 'client_id to give the client (default: generated)')
    .option('--scope <scopes>', 'operator scope(s), space-separated; repeatable', collect, [])
    .option('--redirect-uri <uri>', "the platform's redirect URI (exact match); repeatable", collect, [])
    .action(
      run(async (options: AddOptions): Promise<CommandResult> => {
        const [{ parseScopeString }, { addVendorPlatform }, { requireSiteByOrigin }] = await Promise.all([
          import('../../clients/scopes.js'),
          import('../../clients/vendor-platforms.js'),
          import('../../sites/sites.js'),
        ]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const platform = await addVendorPlatform(db, site.id, {
            clientName: options.clientName,
            clientId: options.clientId,
            scopes: options.scope.flatMap(parseScopeString),
            redirectUris: options.redirectUri,
          });
          return {
            text: [`allowlisted vendor platform "${platform.clientName}" at ${site.origin}`, `  client_id: ${platform.client.clientId} (public, no secret)`].join('\n'),
            data: platformJson(platform),
          };
        });
      }),
    );

  vendor
    .command('list')
    .description("list a site's vendor platforms")
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .action(
      run(async (options: { site: string }): Promise<CommandResult> => {
        const [{ listVendorPlatforms }, { requireSiteByOrigin }] = await Promise.all([import('../../clients/vendor-platforms.js'), import('../../sites/sites.js')]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const platforms = await listVendorPlatforms(db, site.id);
          return {
            text:
              platforms.length === 0
                ? `(no vendor platforms at ${site.origin})`
                : table([
                    ['CLIENT_NAME', 'CLIENT_ID', 'REDIRECT_URIS', 'SCOPES'],
                    ...platforms.map((one) => [one.clientName, one.client.clientId, one.client.redirectUris.join(' '), one.client.scopes.join(' ')]),
                  ]),
            data: platforms.map(platformJson),
          };
        });
      }),
    );

  vendor
    .command('remove')
    .description('take a vendor platform off the allowlist; its client and tokens stay unless --delete-client')
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .requiredOption('--client-name <name>', 'the platform to remove')
    .option('--delete-client', 'also delete its OAuth client, which revokes every token it holds')
    .action(
      run(async (options: { site: string; clientName: string; deleteClient?: boolean }): Promise<CommandResult> => {
        const [{ removeVendorPlatform }, { requireSiteByOrigin }] = await Promise.all([import('../../clients/vendor-platforms.js'), import('../../sites/sites.js')]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const { platform, clientDeleted } = await removeVendorPlatform(db, site.id, options.clientName, { deleteClient: Boolean(options.deleteClient) });
          const what = clientDeleted ? `; client ${platform.client.clientId} deleted with its tokens` : `; client ${platform.client.clientId} kept`;
          return { text: `removed vendor platform "${platform.clientName}" from ${site.origin}${what}`, data: { ...platformJson(platform), removed: true, clientDeleted } };
        });
      }),
    );
}
