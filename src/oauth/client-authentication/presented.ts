import { decodeJwt } from 'jose';
import type { TokenEndpointAuthMethod } from '../../clients/clients.js';
import { InvalidClientError, InvalidRequestError } from '../errors.js';
import { isBasicAuthorization, parseBasicCredentials } from './basic.js';

/** RFC 7523 2.2: the only client_assertion_type accepted. */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** What a request presents to authenticate its client, before the client is known. */
export interface PresentedCredentials {
  clientId: string;
  /** Every method the request uses; more than one is refused once the registered method is known. */
  methods: TokenEndpointAuthMethod[];
  secret?: string;
  assertion?: string;
  /** The client tried HTTP Basic: a 401 must carry a Basic challenge (RFC 6749 5.2). */
  triedBasic: boolean;
}

/** The client an unverified assertion names (its `sub`, which must equal `iss`); verified later against the client's keys. */
function assertionSubject(assertion: string): string | undefined {
  try {
    const { sub } = decodeJwt(assertion);
    return typeof sub === 'string' && sub !== '' ? sub : undefined;
  } catch {
    throw new InvalidClientError('client_assertion is not a JWT (RFC 7523 3)');
  }
}

/**
 * Reads the credentials of the token, revocation and introspection endpoints: an `Authorization: Basic` header
 * (client_secret_basic), `client_secret` in the body (client_secret_post), `client_assertion` with its type
 * (private_key_jwt), or `client_id` alone (none). The client_id comes from the body, the Basic header, or, as RFC 7521
 * 4.2 allows, the assertion; where two say it they must agree.
 */
export function readPresentedCredentials(form: Map<string, string>, authorizationHeader: string | undefined): PresentedCredentials {
  const triedBasic = isBasicAuthorization(authorizationHeader);
  const basic = triedBasic ? parseBasicCredentials(authorizationHeader) : undefined;
  const bodyId = form.get('client_id');
  const secret = form.get('client_secret');
  const assertionType = form.get('client_assertion_type');
  const assertion = form.get('client_assertion');

  if (assertionType !== undefined && assertionType !== JWT_BEARER_ASSERTION_TYPE) {
    // RFC 7521 4.2.1: an unknown assertion type is invalid_client.
    throw new InvalidClientError(`client_assertion_type ${assertionType} is not supported; use ${JWT_BEARER_ASSERTION_TYPE}`);
  }
  if ((assertionType === undefined) !== (assertion === undefined)) {
    throw new InvalidRequestError(assertion === undefined ? 'client_assertion_type is given without client_assertion' : `client_assertion is given without client_assertion_type (${JWT_BEARER_ASSERTION_TYPE})`);
  }

  const methods: TokenEndpointAuthMethod[] = [];
  if (basic) methods.push('client_secret_basic');
  if (secret !== undefined) methods.push('client_secret_post');
  if (assertion !== undefined) methods.push('private_key_jwt');

  if (basic && bodyId !== undefined && bodyId !== basic.clientId) {
    throw new InvalidClientError(`the client_id in the body (${bodyId}) differs from the one in the Authorization: Basic header (${basic.clientId})`);
  }
  const clientId = bodyId ?? basic?.clientId ?? (assertion === undefined ? undefined : assertionSubject(assertion));
  if (clientId === undefined) throw new InvalidRequestError('the client_id parameter is required');
  return {
    clientId,
    methods: methods.length === 0 ? ['none'] : methods,
    ...(basic ? { secret: basic.clientSecret } : secret !== undefined ? { secret } : {}),
    ...(assertion !== undefined ? { assertion } : {}),
    triedBasic,
  };
}
