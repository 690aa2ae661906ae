import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { ClientSettingsInput } from '../../clients/client-settings.js';
import { TOKEN_ENDPOINT_AUTH_METHODS, type TokenEndpointAuthMethod } from '../../clients/auth-methods.js';
import type { OAuthClient } from '../../clients/clients.js';
import { ValidationError } from '../../shared/errors.js';
import { CliError, table, type CommandResult, type Runner } from '../command-kit.js';
import { withDatabase } from '../runtime.js';

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
    jwks: client.jwks,
    jwksUri: client.jwksUri,
    dpopBoundAccessTokens: client.dpopBoundAccessTokens,
    postLogoutRedirectUris: client.postLogoutRedirectUris,
    backchannelLogoutUri: client.backchannelLogoutUri,
    createdAt: client.createdAt.toISOString(),
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The options that set a client's authentication and logout settings, on `client create` and `client update`. */
interface SettingsOptions {
  authMethod?: string;
  jwks?: string;
  jwksUri?: string;
  dpopBound?: boolean;
  postLogoutRedirectUri: string[];
  backchannelLogoutUri?: string;
}

interface CreateOptions extends SettingsOptions {
  site: string;
  name: string;
  audience?: string;
  confidential?: boolean;
  service?: boolean;
  scope: string[];
  redirectUri: string[];
}

interface UpdateOptions extends SettingsOptions {
  site: string;
  clientId: string;
  name?: string;
  scope: string[];
  redirectUri: string[];
  clearPostLogoutRedirectUris?: boolean;
}

function settingsCommand(command: Command): Command {
  return command
    .option('--auth-method <method>', `token endpoint auth method: ${TOKEN_ENDPOINT_AUTH_METHODS.join(' | ')} (a public client: none only)`)
    .option('--jwks <json|@file>', 'for private_key_jwt: the JWK Set of public keys, inline JSON or @path to a file; "null" removes it')
    .option('--jwks-uri <url>', 'for private_key_jwt: the https URL of the JWK Set; "null" removes it')
    .option('--dpop-bound', 'require DPoP-bound access tokens (RFC 9449)')
    .option('--no-dpop-bound', 'stop requiring DPoP-bound access tokens')
    .option('--post-logout-redirect-uri <uri>', 'where members may return after logout (exact match); repeatable', collect, [])
    .option('--backchannel-logout-uri <url>', 'where logout tokens are POSTed; "null" removes it');
}

/** A JWK Set given inline or as @file; "null" clears it. Bad JSON is an argument error, not a stored value. */
function jwksOption(value: string): unknown {
  if (value === 'null') return null;
  const text = value.startsWith('@') ? readFileSync(value.slice(1), 'utf8') : value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CliError('--jwks must be a JSON JWK Set ({"keys": [...]}) or @path to a file holding one', 'invalid_argument', 2);
  }
}

function settingsFrom(options: SettingsOptions): ClientSettingsInput {
  const settings: ClientSettingsInput = {};
  if (options.authMethod !== undefined) {
    if (!(TOKEN_ENDPOINT_AUTH_METHODS as readonly string[]).includes(options.authMethod)) {
      throw new CliError(`--auth-method must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}`, 'invalid_argument', 2);
    }
    settings.tokenEndpointAuthMethod = options.authMethod as TokenEndpointAuthMethod;
  }
  if (options.jwks !== undefined) settings.jwks = jwksOption(options.jwks);
  if (options.jwksUri !== undefined) settings.jwksUri = options.jwksUri === 'null' ? null : options.jwksUri;
  if (options.dpopBound !== undefined) settings.dpopBoundAccessTokens = options.dpopBound;
  if (options.postLogoutRedirectUri.length > 0) settings.postLogoutRedirectUris = options.postLogoutRedirectUri;
  if (options.backchannelLogoutUri !== undefined) settings.backchannelLogoutUri = options.backchannelLogoutUri === 'null' ? null : options.backchannelLogoutUri;
  return settings;
}

export function registerClientCommands(program: Command, run: Runner): void {
  const client = program.command('client').description('OAuth clients of a site');

  settingsCommand(
    client
      .command('create')
      .description('create an OAuth client; a confidential one gets a secret, printed once')
      .requiredOption('--site <origin>', 'the site, named by its origin')
      .requiredOption('--name <name>', 'application name shown on the consent page')
      .option('--audience <member|operator>', 'member: account:* scopes for a member app; operator: admin API scopes (required unless --service)')
      .option('--confidential', 'confidential client (client_secret_post unless --auth-method says otherwise); default: public (none + PKCE S256)')
      .option('--service', 'a service client: calls the admin API as itself with client_credentials (confidential, operator, admin scopes, no redirect URIs)')
      .option('--scope <scopes>', 'scope(s), space-separated; repeatable', collect, [])
      .option('--redirect-uri <uri>', 'redirect URI (exact match); repeatable', collect, []),
  ).action(
    run(async (options: CreateOptions): Promise<CommandResult> => {
      const service = Boolean(options.service);
      const audience = options.audience ?? (service ? 'operator' : undefined);
      if (audience !== 'member' && audience !== 'operator') throw new CliError('--audience must be member or operator', 'invalid_argument', 2);
      const settings = settingsFrom(options);
      const [{ createApplication }, { parseScopeString }, { requireSiteByOrigin }] = await Promise.all([
        import('../../clients/applications.js'),
        import('../../clients/scopes.js'),
        import('../../sites/sites.js'),
      ]);
      return withDatabase(async (db) => {
        const site = await requireSiteByOrigin(db, options.site);
        const { application, clientSecret } = await createApplication(db, site.id, {
          name: options.name,
          audience,
          confidential: service || Boolean(options.confidential),
          kind: service ? 'service' : 'operator_created',
          scopes: options.scope.flatMap(parseScopeString),
          redirectUris: options.redirectUri,
          settings,
        }).catch((error: unknown) => {
          // The CLI has always named refused client metadata with the registration error (RFC 7591 3.2.2).
          throw error instanceof ValidationError ? new ValidationError(error.message, error.problems, 'invalid_client_metadata') : error;
        });
        const created = application.client;
        const what = created.kind === 'service' ? 'service client' : `${created.confidential ? 'confidential' : 'public'} ${created.audience} client`;
        const lines = [`created ${what} "${created.name}" at ${site.origin}`, `  client_id:     ${created.clientId}`];
        if (clientSecret) lines.push(`  client_secret: ${clientSecret}`, '  (the secret is shown only now; store it safely)');
        if (created.kind === 'service') lines.push(`  token: POST ${site.origin}/api/oauth/token grant_type=client_credentials (${created.tokenEndpointAuthMethod})`);
        return { text: lines.join('\n'), data: { ...clientJson(created), clientSecret } };
      });
    }),
  );

  settingsCommand(
    client
      .command('update')
      .description("change a client's name, scopes, redirect URIs, authentication method, keys, DPoP requirement or logout addresses")
      .requiredOption('--site <origin>', 'the site, named by its origin')
      .requiredOption('--client-id <id>', 'the client')
      .option('--name <name>', 'application name shown on the consent page')
      .option('--scope <scopes>', 'replace the scopes: scope(s), space-separated; repeatable', collect, [])
      .option('--redirect-uri <uri>', 'replace the redirect URIs; repeatable', collect, [])
      .option('--clear-post-logout-redirect-uris', 'remove every post-logout redirect URI'),
  ).action(
    run(async (options: UpdateOptions): Promise<CommandResult> => {
      const settings = settingsFrom(options);
      if (options.clearPostLogoutRedirectUris) settings.postLogoutRedirectUris = [];
      const [{ requireApplication, updateApplication }, { parseScopeString }, { requireSiteByOrigin }] = await Promise.all([
        import('../../clients/applications.js'),
        import('../../clients/scopes.js'),
        import('../../sites/sites.js'),
      ]);
      return withDatabase(async (db) => {
        const site = await requireSiteByOrigin(db, options.site);
        const current = await requireApplication(db, site.id, options.clientId);
        const updated = await updateApplication(
          db,
          site.id,
          options.clientId,
          {
            ...settings,
            ...(options.name === undefined ? {} : { name: options.name }),
            ...(options.scope.length === 0 ? {} : { scopes: options.scope.flatMap(parseScopeString) }),
            ...(options.redirectUri.length === 0 ? {} : { redirectUris: options.redirectUri }),
          },
          current.client.version,
        );
        return { text: `updated ${updated.client.clientId} (${updated.client.tokenEndpointAuthMethod})`, data: clientJson(updated.client) };
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
                : table([['CLIENT_ID', 'NAME', 'KIND', 'AUDIENCE', 'AUTH', 'SCOPES'], ...clients.map((one) => [one.clientId, one.name, one.kind, one.audience, one.tokenEndpointAuthMethod, one.scopes.join(' ')])]),
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

  client
    .command('revoke-tokens')
    .description('revoke every live token of a client at once (the client stays)')
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .requiredOption('--client-id <id>', 'the client')
    .action(
      run(async (options: { site: string; clientId: string }): Promise<CommandResult> => {
        const [{ revokeApplicationTokens }, { requireSiteByOrigin }] = await Promise.all([import('../../clients/applications.js'), import('../../sites/sites.js')]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const { application, revokedPairs } = await revokeApplicationTokens(db, site.id, options.clientId);
          return { text: `revoked ${revokedPairs} token pair(s) of ${application.client.clientId}`, data: { clientId: application.client.clientId, revokedTokenPairs: revokedPairs } };
        });
      }),
    );
}
