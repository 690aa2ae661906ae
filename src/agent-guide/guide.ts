import { IDENTITY_SCOPES, isScope, MEMBER_ONLY_SCOPES, SCOPE_DESCRIPTIONS } from '../clients/scopes.js';
import type { McpPrompt } from '../mcp/prompt.js';
import type { McpResource } from '../mcp/resource.js';
import type { McpTool } from '../mcp/tool.js';
import type { AuthorizationServerMetadata } from '../oauth/discovery/authorization-server-metadata.js';
import type { ProtectedResourceMetadata } from '../oauth/discovery/protected-resource-metadata.js';
import { DPOP_SIGNING_ALGS } from '../oauth/dpop/algorithms.js';
import type { Site } from '../sites/sites.js';
import type { VariantProfile } from '../variant.js';

/**
 * What the agent guide is written from: the live documents and settings of one site, never a hand-kept copy. Every
 * URL in the guide comes from these values, so the guide names exactly what this site serves.
 */
export interface GuideInputs {
  site: Site;
  variant: VariantProfile;
  /** RFC 8414 metadata, as served at /.well-known/oauth-authorization-server. */
  authorizationServer: AuthorizationServerMetadata;
  /** RFC 9728 metadata, as served at /.well-known/oauth-protected-resource. */
  protectedResource: ProtectedResourceMetadata;
  /** Where the documents themselves are served. */
  authorizationServerMetadataUrl: string;
  protectedResourceMetadataUrl: string;
  openidConfigurationUrl: string;
  /** The MCP endpoint and the tools, resources (and resource templates) and prompts it has in this variant. */
  mcpUrl: string;
  tools: readonly McpTool[];
  resources: readonly McpResource[];
  prompts: readonly McpPrompt[];
  /** The member GraphQL API of this variant. */
  memberGraphqlUrl: string;
  /** The admin API's OpenAPI document, when this deployment serves it; null otherwise. */
  adminApiContractUrl: string | null;
  /** The HTML API reference (/docs), when this deployment serves it; null otherwise. */
  apiReferenceUrl: string | null;
}

function text(metadata: Record<string, unknown>, field: string): string | null {
  const value = metadata[field];
  return typeof value === 'string' ? value : null;
}

function list(metadata: Record<string, unknown>, field: string): string[] {
  const value = metadata[field];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function code(values: readonly string[]): string {
  return values.map((value) => `\`${value}\``).join(', ');
}

function audienceOf(scope: string): string {
  if (!isScope(scope)) return 'unknown';
  if (MEMBER_ONLY_SCOPES.includes(scope)) return 'member only';
  if (IDENTITY_SCOPES.includes(scope)) return 'member and operator';
  return 'operator only';
}

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const escape = (cell: string) => cell.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.map(escape).join(' | ')} |`)].join('\n');
}

/** What a caller needs for an MCP tool, resource or prompt, in a table cell. */
function needs(scopes: readonly string[]): string {
  return scopes.length === 0 ? 'nothing (public)' : `member token with ${scopes.map((scope) => `\`${scope}\``).join(' and ')}`;
}

/** The first sentence of a tool description: enough to pick a tool from a table. */
function firstSentence(description: string): string {
  const match = /^(.+?\.)(\s|$)/.exec(description);
  return match?.[1] ?? description;
}

/**
 * The agent guide of one site (spec: "A plain-text guide for agents is served at /auth.md"), in the order of
 * Authentication 1: discover, pick a method, register, use the credential, handle errors, revoke.
 */
export function renderAgentGuide(inputs: GuideInputs): string {
  const { site, variant, authorizationServer: as, protectedResource: pr } = inputs;
  const origin = site.origin;
  const issuer = text(as, 'issuer') ?? origin;
  const authorize = text(as, 'authorization_endpoint');
  const token = text(as, 'token_endpoint');
  const userinfo = text(as, 'userinfo_endpoint');
  const revoke = text(as, 'revocation_endpoint');
  const endSession = text(as, 'end_session_endpoint');
  const register = text(as, 'registration_endpoint');
  const jwks = text(as, 'jwks_uri');
  const introspect = text(as, 'introspection_endpoint');
  const resource = text(pr, 'resource') ?? origin;
  const scopes = list(as, 'scopes_supported');
  const authMethods = list(as, 'token_endpoint_auth_methods_supported');
  const assertionAlgs = list(as, 'token_endpoint_auth_signing_alg_values_supported');
  const challengeMethods = list(as, 'code_challenge_methods_supported');
  const grantTypes = list(as, 'grant_types_supported');
  const idTokenAlgs = list(as, 'id_token_signing_alg_values_supported');
  const publicTools = inputs.tools.filter((tool) => tool.scopes.length === 0);
  const memberTools = inputs.tools.filter((tool) => tool.scopes.length > 0);
  const mcpAuthority = new URL(origin).host;

  const endpointRows: string[][] = [
    ['Authorization server metadata (RFC 8414), the source of truth', inputs.authorizationServerMetadataUrl],
    ['Protected resource metadata (RFC 9728)', inputs.protectedResourceMetadataUrl],
    ['OpenID Connect discovery', inputs.openidConfigurationUrl],
    ...(authorize ? [['Authorization endpoint (GET, in a browser)', authorize]] : []),
    ...(token ? [['Token endpoint (POST, form-encoded)', token]] : []),
    ...(userinfo ? [['Userinfo (GET or POST, bearer token with `openid`)', userinfo]] : []),
    ...(revoke ? [['Revocation (POST, form-encoded, RFC 7009)', revoke]] : []),
    ...(endSession ? [['Sign-out (GET or POST, in a browser; OpenID Connect RP-Initiated Logout)', endSession]] : []),
    ...(register ? [['Vendor-platform registration (POST)', register]] : []),
    ...(introspect ? [['Introspection (POST, form-encoded, RFC 7662)', introspect]] : []),
    ...(jwks ? [['JWKS: id_token signing keys', jwks]] : []),
    ['MCP endpoint (Streamable HTTP, POST)', inputs.mcpUrl],
    ['Member GraphQL API (POST, JSON)', inputs.memberGraphqlUrl],
    ...(inputs.adminApiContractUrl ? [['Admin API contract (OpenAPI)', inputs.adminApiContractUrl]] : []),
    ...(inputs.apiReferenceUrl ? [['API reference for people (HTML): the admin and member APIs', inputs.apiReferenceUrl]] : []),
  ];

  const lines: string[] = [];
  const add = (...more: string[]) => lines.push(...more);

  add(
    `# Agent guide: ${site.name}`,
    '',
    `This guide is generated from the live metadata of the site at \`${origin}\`. Every URL in it is this site's; when the guide and the metadata documents ever disagree, the authorization server metadata wins. Deployment variant: ${variant.name}.`,
    '',
    'Follow the steps in order: **1. discover, 2. pick a method, 3. register, 4. use the credential, 5. handle errors, 6. revoke.** The flow is OAuth 2.0 Authorization Code with PKCE (S256) and OpenID Connect. Nothing else is offered: no client-credentials grant, no device flow, no password grant.',
    '',
    'Not supported: a vendor-defined agent-authentication extension (autonomous identity assertions, service authentication, an anonymous claim ceremony). Do not attempt it. **There is no claim step**: a credential comes only from the authorization-code flow below, after a person with a role at this school signs in and consents.',
    '',
    '## 1. Discover',
    '',
    `- Fetch the protected resource metadata: ${inputs.protectedResourceMetadataUrl}. Its \`resource\` is \`${resource}\`: the value to send as \`resource\` (RFC 8707) and the origin every token is bound to. Its \`authorization_servers\` is ${code(list(pr, 'authorization_servers'))}.`,
    `- Fetch the authorization server metadata: ${inputs.authorizationServerMetadataUrl}. The \`issuer\` is \`${issuer}\`. It lists every endpoint, grant type and scope, and it is the source of truth.`,
    `- A \`401\` from a protected endpoint carries \`WWW-Authenticate: Bearer …, resource_metadata="${inputs.protectedResourceMetadataUrl}"\`: the same starting point.`,
    '',
    table(['What', 'URL'], endpointRows),
    '',
    '## 2. Pick a method',
    '',
    'Decide whom the agent acts for; that decides the client, the scopes and the API.',
    '',
    table(
      ['Route', 'Acts for', 'Scopes', 'Reaches'],
      [
        ['Anonymous', 'nobody (no credential)', 'none', `the public MCP tools at ${inputs.mcpUrl}`],
        ['Member client', 'one signed-in member of this school', `${code(MEMBER_ONLY_SCOPES)} (plus ${code(IDENTITY_SCOPES)})`, `the member's own data: the member MCP tools at ${inputs.mcpUrl} and ${inputs.memberGraphqlUrl}`],
        [
          'Operator client',
          'a site operator (owner, operator or staff)',
          'every other scope of the table below; never `account:read` or `account:write`',
          inputs.adminApiContractUrl ? `the REST admin API described at ${inputs.adminApiContractUrl}` : 'the REST admin API (its OpenAPI contract is not published by this deployment yet)',
        ],
      ],
    ),
    '',
    `Client authentication at the token, revocation and introspection endpoints (\`token_endpoint_auth_methods_supported\`: ${code(authMethods)}). A client uses exactly the one method it is registered with; two methods in one request are refused:`,
    '',
    '- **Public client**: `none`. No secret; PKCE proves possession. Use this for agents that cannot keep a secret.',
    '- **Confidential client with a secret**: `client_secret_basic` (`Authorization: Basic base64(client_id:client_secret)`, each part form-urlencoded first) or `client_secret_post` (`client_id` and `client_secret` as form fields), whichever it is registered for. Presenting `none` for a confidential client is refused.',
    `- **Confidential client with keys**: \`private_key_jwt\`: \`client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer\` and a \`client_assertion\` signed with a registered key (${code(assertionAlgs)}): \`iss\` = \`sub\` = your \`client_id\`, \`aud\` = \`${origin}\` (or the endpoint URL), \`exp\` at most 5 minutes ahead, a new \`jti\` for every request.`,
    '',
    `PKCE: \`code_challenge_methods_supported\` is ${code(challengeMethods)}; \`plain\` is refused. Grant types: ${code(grantTypes)}.`,
    '',
    '## 3. Register',
    '',
    '### Member clients: no self-serve route',
    '',
    `A site operator creates the client in the site admin area (Developers, OAuth applications). That area appears once the operator enables the MCP connections beta feature (${site.mcpConnectionsEnabled ? 'enabled at this site' : 'not enabled at this site yet'}). The operator picks its scopes and gives you the \`client_id\`: a **public** client is created with the confidential box unchecked, a **confidential** one with it checked (then you also get a \`client_secret\`). Anyone with a role at the school, students included, can then authorize it.`,
    '',
    '### Operator clients: two routes',
    '',
    `1. **Vendor-platform registration** at ${register ?? 'the registration endpoint'}: POST a JSON object (or a form) with \`client_name\`. The name is matched against this site's allowlist of known vendor platforms; a match answers \`201\` with that platform's \`client_id\` (a public client). This is not open dynamic registration (RFC 7591): any other name gets \`400 invalid_client_metadata\`, and no change to the request body helps.`,
    `2. **Client ID Metadata Document**: use the HTTPS URL of a JSON document describing your client as the \`client_id\` (\`client_id_metadata_document_supported\` is \`${String(as.client_id_metadata_document_supported === true)}\`). It resolves only where this site permits its host: an allowlisted host${site.openRegistration ? ', or, as open registration is enabled here, any host' : ' (open registration is off at this site)'}. Its \`redirect_uris\` must be on the document's host or loopback. While the operator has not reviewed the client, only read and identity scopes (\`openid\`, \`profile\`, \`email\`, \`*:read\`) may be requested.`,
    '',
    '### Machine clients for the admin API: service clients',
    '',
    `A script or another system that calls the admin API as itself, with no person signing in, uses a **service client**: an operator creates it (admin area, admin API \`createOAuthApplication\` with \`kind: service\`, or \`npx schoolgate client create --service\`) with a fixed set of admin scopes and gives you its \`client_id\` and \`client_secret\` (or registers your public keys for \`private_key_jwt\`). Get a token with \`POST ${token ?? `${origin}/api/oauth/token`}\`, form-encoded \`grant_type=client_credentials\`, authenticated with the client's registered method (e.g. HTTP Basic), optionally \`scope\` (default: all the client's scopes) and \`resource=${resource}\`. The answer has \`access_token\`, \`expires_in\` and \`scope\`, no refresh token and no id_token: ask again when it expires. The token works at the admin API only (userinfo and the member API answer 401), and what it writes there is recorded as done by the client. Member and ordinary operator clients get \`unauthorized_client\` for this grant.`,
    '',
    '## 4. Use the credential',
    '',
    `**Authorize** (in the member's or operator's browser): \`GET ${authorize ?? `${origin}/oauth/authorize`}\` with \`response_type=code\`, \`client_id\`, \`redirect_uri\`, \`scope\` (space-separated), \`resource=${resource}\`, \`code_challenge\`, \`code_challenge_method=S256\`, \`state\`, and \`nonce\` when you want an id_token. The person signs in and sees a consent screen — on every authorization; a consent screen is no evidence that an earlier grant is gone. The browser comes back to \`redirect_uri\` with \`code\`, \`state\` and \`iss\`; check that \`iss\` is \`${issuer}\` (RFC 9207) and that \`state\` is yours.`,
    '',
    `**Exchange the code**: \`POST ${token ?? `${origin}/api/oauth/token`}\`, form-encoded: \`grant_type=authorization_code\`, \`code\`, \`redirect_uri\`, \`client_id\`, \`code_verifier\`, \`resource=${resource}\`, plus \`client_secret\` for a confidential client. The answer has \`access_token\` (lifetime \`expires_in\`, two hours), \`refresh_token\`, \`token_type: Bearer\` and \`scope\`; with \`openid\` also an \`id_token\` (${code(idTokenAlgs)}, 10 minutes; check \`iss\`, \`aud\` = your \`client_id\`, \`exp\`, \`nonce\` and the signature by \`kid\` at ${jwks ?? 'the jwks_uri'}).${variant.schoolBoundMemberTokens ? ' Member tokens also carry `school_id` (this site\'s id), `school_subdomain` and `created_at`.' : ''}`,
    '',
    !variant.introspection
      ? `**Store the \`resource\` you sent with the token.** This deployment has no introspection endpoint, and the binding is not returned by the id_token, userinfo or \`WWW-Authenticate\`. The token works only at \`${resource}\`.`
      : `**The binding can be read back**: introspection at ${introspect ?? 'the introspection endpoint'} (RFC 7662, client-authenticated like revocation) answers \`aud\` and \`resource\` for your own tokens. Storing the \`resource\` you sent is still the simplest.`,
    '',
    '**Call the APIs** with `Authorization: Bearer <access_token>` (the header is the only accepted way):',
    '',
    `- **DPoP** (RFC 9449, optional): send a \`DPoP\` proof (\`typ\` \`dpop+jwt\`, ${code(DPOP_SIGNING_ALGS)}, your public key in \`jwk\`; claims \`jti\` new each time, \`htm\`, \`htu\` = the URL without query, \`iat\`) with the token request and the tokens come back \`token_type: DPoP\`, bound to your key (a public client's refresh token too: refresh with a proof of the same key). Then call every API with \`Authorization: DPoP <access_token>\` and a fresh proof carrying \`ath\` (base64url SHA-256 of the token); a bound token sent as \`Bearer\` is refused. Errors are \`invalid_dpop_proof\` (400 at the token endpoint, 401 \`WWW-Authenticate: DPoP …\` elsewhere); \`use_dpop_nonce\` means: retry once with the nonce in the \`DPoP-Nonce\` response header. A code can be bound to your key with \`dpop_jkt\` at the authorization endpoint.`,
    `- **MCP**: ${inputs.mcpUrl}, Streamable HTTP in stateless mode (POST JSON-RPC; no session id; GET answers 405). Without a token you get the public tools, and calling a member tool answers HTTP 401 with \`WWW-Authenticate: Bearer resource_metadata=…, scope=…\`: start the authorization-code flow below. With a member token you also get the member tools; calling one whose scopes the token lacks answers HTTP 403 with \`WWW-Authenticate: Bearer error="insufficient_scope", scope=…, resource_metadata=…\`: authorize again asking for every scope in \`scope\` (step-up). An operator token gets the public tools only; a member tool called with one returns the tool error \`insufficient_scope\`. The member is the token's \`sub\` (the user id userinfo reports).`,
    `- **Member GraphQL**: \`POST ${inputs.memberGraphqlUrl}\` with JSON \`{"query": "…"}\`; a member token with \`account:read\` (reads) or \`account:write\` (${variant.memberFeatures.has('notificationInbox') ? 'the three notification mutations' : 'writes'}).`,
    ...(inputs.adminApiContractUrl ? [`- **Admin API** (operator tokens, or a service client's \`client_credentials\` token): see ${inputs.adminApiContractUrl}.`] : []),
    `- **Userinfo**: ${userinfo ?? `${origin}/api/oauth/userinfo`} with a token holding \`openid\`: \`sub\`, \`email\`, \`name\`${variant.pictureClaim ? ', `picture`' : ''}, \`org_id\`, \`roles\`.`,
    '',
    table(
      ['MCP tool', 'Needs', 'What it does'],
      [...publicTools, ...memberTools].map((tool) => [`\`${tool.name}\``, needs(tool.scopes), firstSentence(tool.description)]),
    ),
    '',
    `**MCP resources**: what a client reads with \`resources/read\`. Every URI names this school by its host: its data is JSON at \`school://${mcpAuthority}/…\`, each holding the same JSON as the tool its description names. \`resources/list\` pages through them (pass \`nextCursor\` back unchanged), \`resources/templates/list\` gives the templates, and \`completion/complete\` with \`{"type": "ref/resource", "uri": <template>}\` suggests a template's \`{slug}\`. Member resources are the token's member's own (no URI names a member) and need what the member tools need: without a token HTTP 401, without the scope HTTP 403 (step-up). A URI of another school, an unknown path, a query string or a course the member is not enrolled in answers JSON-RPC \`-32602\` with the URI in \`data\`.`,
    '',
    table(
      ['MCP resource', 'URI', 'Needs', 'What it holds'],
      inputs.resources.map((resource) => [`\`${resource.spec.name}\``, `\`${resource.isTemplate ? resource.uriTemplate(site) : resource.uri(site)}\``, needs(resource.scopes), firstSentence(resource.spec.description)]),
    ),
    '',
    ...(inputs.prompts.length === 0
      ? []
      : [
          '**MCP prompts**: ready-made requests a person picks in their client (`prompts/list`, `prompts/get`; `completion/complete` with `{"type": "ref/prompt", "name": …}` suggests argument values). Their messages embed the resources above, read for the caller; member prompts need what member resources need.',
          '',
          table(
            ['MCP prompt', 'Needs', 'What it does'],
            inputs.prompts.map((prompt) => [`\`${prompt.spec.name}\``, needs(prompt.scopes), firstSentence(prompt.spec.description)]),
          ),
          '',
        ]),
    `**Refresh** before the access token expires: \`POST ${token ?? `${origin}/api/oauth/token`}\` with \`grant_type=refresh_token\`, \`refresh_token\`, \`client_id\` (and \`client_secret\` when confidential). No prompt, no id_token. The previous pair stays live until the new access token is first used; if the refresh response is lost, retry with the old refresh token until then.`,
    '',
    '## 5. Handle errors',
    '',
    'OAuth endpoints answer RFC 6749 JSON: `{"error": "…", "error_description": "…"}`.',
    '',
    table(
      ['Error', 'Where', 'What to do'],
      [
        ['`invalid_request`', 'any OAuth endpoint', 'Fix the request (missing or repeated parameter, wrong encoding); the description names the problem.'],
        ['`invalid_client`', 'token, revocation, introspection', 'Wrong client authentication: use the one method the client is registered for (the description names it), and only that one; a public client sends no secret or assertion; a client assertion needs a fresh `jti` and `exp` within 5 minutes.'],
        ['`invalid_grant`', 'token', 'The code or refresh token is expired, used, revoked or not yours: run the authorization-code flow again. (Two refreshes of one token at once: the loser may retry with the same refresh token.)'],
        ['`invalid_scope`', 'authorize', 'Ask only for scopes the client holds; an operator client asking for `account:read` or `account:write` always gets this.'],
        ['`invalid_target`', 'authorize, token', `Send \`resource=${resource}\` exactly, at both endpoints.`],
        ['`invalid_client_metadata`', 'registration', 'The `client_name` is not a known vendor platform. No body change helps: ask the operator for a client, or use a Client ID Metadata Document.'],
        ['`unauthorized_client`', 'revocation (403)', 'A confidential client revoked without authenticating: send its credentials as at the token endpoint.'],
        ['`access_denied`', 'authorize redirect', 'The person declined, or their account may not authorize this client (no role at the school; operator clients need an owner, operator or staff role).'],
        [
          '`invalid_token` (401)',
          'MCP, GraphQL, userinfo, admin API',
          `The token is missing (GraphQL), malformed, unknown, expired, revoked or issued for another origin. \`WWW-Authenticate\` points at ${inputs.protectedResourceMetadataUrl}. Refresh, or authorize again. "Issued for a different organization" (a member token without this site's \`school_id\`): run the authorization-code flow again. At \`/mcp\`, a token with no resource owner is refused as not bound to a user${variant.mcpUnboundToken === 'refuse' ? '' : ' in variant A; this deployment (variant B) serves it the public tools'}.`,
        ],
        [
          '`insufficient_scope`',
          'GraphQL (403), admin API (403), MCP (tool error)',
          `The token lacks a scope; \`WWW-Authenticate\` (HTTP) or the tool error names it. Authorize again asking for it.${variant.memberGraphql.scopeGate === 'per-field' ? ' In GraphQL, a token with one account scope where a field needs the other gets HTTP 200 with an `errors` entry (`INSUFFICIENT_SCOPE`): match on `errors`, not on the status code.' : ''}`,
        ],
        ['`temporarily_unavailable` (503)', 'any endpoint', 'The service could not reach a verdict (its database is unreachable, or a write lost a conflict with another instance after its retries). There is no `WWW-Authenticate`: **keep your tokens** and retry after `Retry-After` seconds.'],
        ['`site_not_found` (404)', 'any URL', 'No school is configured at that origin; check the origin.'],
      ],
    ),
    '',
    '## 6. Revoke',
    '',
    `\`POST ${revoke ?? `${origin}/api/oauth/revoke`}\`, form-encoded: \`token\` (the refresh token, or the access token), \`client_id\`, and \`client_secret\` for a confidential client (without it: 403 \`unauthorized_client\`; a public client omits it). An access token and its refresh token are one record: revoking the refresh token, or the access token while it is still live, revokes both. Revoking an access token that is past its lifetime answers 200 and does nothing (its refresh token keeps working), so revoke the refresh token to end a grant. Every completed authorization adds a new pair and earlier pairs stay live: revoke each one you no longer need. An unknown token answers 200 as well.`,
    '',
    `**Sign the person out of the school**: send their browser to \`${endSession ?? `${origin}/oauth/logout`}\` with \`id_token_hint\` (the id_token you hold; an expired one is fine), \`post_logout_redirect_uri\` (exactly one of those registered for your client) and \`state\`. When the hint names the current sign-in, the session ends at once and the browser comes back with \`state\`; otherwise the person is asked to confirm. An unregistered or altered \`post_logout_redirect_uri\`, or a hint this site did not issue, shows an error page and never redirects. Signing out does not revoke your tokens: revoke them as above if you no longer need them.`,
    '',
    `**Back-channel logout**: a client registered with a \`backchannel_logout_uri\` (https) gets a logout token POSTed to it (form-encoded \`logout_token\`, a JWT with \`typ: logout+jwt\` signed with a key from ${jwks ?? 'the JWKS'}, \`aud\` = your client_id, \`sub\`, \`sid\` as in the id_token, and the OpenID Connect Back-Channel Logout event in \`events\`; never a \`nonce\`) when the person signs out or the grant ends. Answer 200 or 204; other answers are retried with backoff for about an hour.`,
    '',
    `**The person can disconnect you**: every application holding a live grant for a member is listed for them at \`${origin}/connected-apps\` (with its scopes, when it was approved and when it last used the grant, to the hour), and operators see the same per member and per application in the admin API. Disconnecting ends the whole grant: your access tokens then answer 401 \`invalid_token\` and your refresh tokens \`invalid_grant\`, and a back-channel logout is sent if you registered for one. Run the authorization-code flow again if the person wants you back.`,
    '',
    '## Scopes',
    '',
    table(
      ['Scope', 'Grants', 'Audience'],
      scopes.map((scope) => [`\`${scope}\``, isScope(scope) ? SCOPE_DESCRIPTIONS[scope] : '', audienceOf(scope)]),
    ),
    '',
  );
  return lines.join('\n');
}
