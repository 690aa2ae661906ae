import { isLoopbackHost, redirectUriProblem as registrableRedirectUriProblem } from '../../clients/redirect-uris.js';
import { isScope, parseScopeString, scopesForAudience, type Scope } from '../../clients/scopes.js';
import { MetadataDocumentRefusedError } from './errors.js';

/** What a valid document contributes to the client row. */
export interface ClientMetadata {
  clientName: string;
  redirectUris: string[];
  /** The document's `scope` ∩ the operator scopes, or every operator scope when it names none. */
  scopes: Scope[];
}

/** Column limits of oauth_clients and authorization_codes. */
const MAX_NAME_LENGTH = 191;
const MAX_REDIRECT_URI_LENGTH = 2048;
const MAX_REDIRECT_URIS = 20;
/** Client authentication with a shared secret: a document is public, so it cannot hold one (CIMD draft, client metadata). */
const SECRET_AUTH_METHODS = new Set(['client_secret_post', 'client_secret_basic', 'client_secret_jwt']);

/**
 * Spec, Authentication 5: a redirect URI must sit under the document's host (https, same host name, any path or port)
 * or be a loopback URI (RFC 8252 7.3), which only reaches the user's own machine.
 */
function redirectUriProblem(value: unknown, documentHost: string): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length > MAX_REDIRECT_URI_LENGTH) return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  const basic = registrableRedirectUriProblem(value);
  if (basic) return basic;
  const url = new URL(value);
  if ((url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackHost(url.hostname)) return null;
  if (url.protocol === 'https:' && url.hostname === documentHost) return null;
  return `must be an https URI on the document's host ${documentHost} or a loopback URI`;
}

function redirectUrisProblems(value: unknown, documentHost: string): string[] {
  if (!Array.isArray(value) || value.length === 0) return ['redirect_uris must be a non-empty array of URIs'];
  if (value.length > MAX_REDIRECT_URIS) return [`redirect_uris may list at most ${MAX_REDIRECT_URIS} URIs`];
  return value.flatMap((uri: unknown, index) => {
    const problem = redirectUriProblem(uri, documentHost);
    return problem ? [`redirect_uris[${index}] ${typeof uri === 'string' ? `(${uri}) ` : ''}${problem}`] : [];
  });
}

function clientNameProblems(value: unknown): string[] {
  if (typeof value !== 'string' || value.trim() === '') return ['client_name must be a non-empty string'];
  return value.trim().length > MAX_NAME_LENGTH ? [`client_name must be at most ${MAX_NAME_LENGTH} characters`] : [];
}

function authenticationProblems(document: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const method = document.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    problems.push(
      typeof method === 'string' && SECRET_AUTH_METHODS.has(method)
        ? `token_endpoint_auth_method ${method} needs a shared secret, which a metadata document cannot carry; use none (PKCE)`
        : `token_endpoint_auth_method must be absent or none; only public metadata-document clients are supported`,
    );
  }
  if (document.client_secret !== undefined || document.client_secret_expires_at !== undefined) problems.push('the document must not contain a client_secret');
  return problems;
}

function grantProblems(document: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { grant_types: grants, response_types: responses } = document;
  if (grants !== undefined && (!Array.isArray(grants) || !grants.includes('authorization_code'))) problems.push('grant_types, when given, must include authorization_code');
  if (responses !== undefined && (!Array.isArray(responses) || !responses.includes('code'))) problems.push('response_types, when given, must include code');
  return problems;
}

/** Scopes the document names that an operator client can hold; names of other servers' scopes are ignored. */
function documentScopes(value: unknown): { scopes: Scope[]; problems: string[] } {
  const operatorScopes = scopesForAudience('operator');
  if (value === undefined) return { scopes: operatorScopes, problems: [] };
  if (typeof value !== 'string') return { scopes: [], problems: ['scope must be a space-separated string'] };
  const scopes = [...new Set(parseScopeString(value))].filter((name): name is Scope => isScope(name) && operatorScopes.includes(name));
  return scopes.length > 0 ? { scopes, problems: [] } : { scopes, problems: [`scope names none of this site's operator scopes (${value})`] };
}

/**
 * Validates a fetched document against the URL it was fetched from (CIMD draft, "Client ID Metadata Document"):
 * `client_id` equal to the URL by simple string comparison, a `client_name`, redirect URIs under the document's host
 * or loopback, a public client only. Every problem is reported at once, so one fix round is enough.
 */
export function validateMetadataDocument(url: URL, document: unknown): ClientMetadata {
  const refuse = (problems: string[]) => new MetadataDocumentRefusedError('invalid_document', `the Client ID Metadata Document at ${url.href} was refused: ${problems.join('; ')}`);
  if (document === null || typeof document !== 'object' || Array.isArray(document)) throw refuse(['it must be a JSON object']);
  const fields = document as Record<string, unknown>;
  const scope = documentScopes(fields.scope);
  const problems = [
    ...(fields.client_id === url.href ? [] : [`client_id must equal the document's URL ${url.href} exactly (it is ${JSON.stringify(fields.client_id ?? null)})`]),
    ...clientNameProblems(fields.client_name),
    ...redirectUrisProblems(fields.redirect_uris, url.hostname),
    ...authenticationProblems(fields),
    ...grantProblems(fields),
    ...scope.problems,
  ];
  if (problems.length > 0) throw refuse(problems);
  return { clientName: (fields.client_name as string).trim(), redirectUris: fields.redirect_uris as string[], scopes: scope.scopes };
}
