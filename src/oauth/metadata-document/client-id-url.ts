import { MetadataDocumentRefusedError } from './errors.js';

/** oauth_clients.client_id holds at most this many characters. */
const MAX_CLIENT_ID_LENGTH = 768;

/** A client_id that is an https URL is a Client ID Metadata Document URL (spec, Authentication 5). */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return clientId.startsWith('https://');
}

/**
 * draft-ietf-oauth-client-id-metadata-document, "Client Identifier": an https URL with a path, no fragment, no
 * user name or password, no dot segments. We also require it in the normalised form the WHATWG URL parser prints,
 * so one document has exactly one client_id spelling.
 */
export function parseClientIdUrl(clientId: string): URL {
  const refuse = (problem: string) => new MetadataDocumentRefusedError('invalid_client_id', `the client_id ${clientId} is not a usable Client ID Metadata Document URL: ${problem}`);
  if (clientId.length > MAX_CLIENT_ID_LENGTH) throw refuse(`it is longer than ${MAX_CLIENT_ID_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw refuse('it is not a URL');
  }
  if (url.protocol !== 'https:') throw refuse('it must use https');
  if (url.username !== '' || url.password !== '') throw refuse('it must not contain a user name or password');
  if (clientId.includes('#')) throw refuse('it must not contain a fragment');
  if (url.pathname === '/' || url.pathname === '') throw refuse('it must contain a path, e.g. https://app.example/oauth/client.json');
  if (url.href !== clientId) throw refuse(`it must be in normalised form (${url.href}), without dot segments, default ports or upper-case host names`);
  return url;
}
