import type { Scope } from '../../clients/scopes.js';
import { parseJsonColumn, requireDate, toDate, type Database } from '../../db/connection.js';
import { randomToken, sha256Hex } from '../../shared/random.js';

/**
 * A validated /oauth/authorize request, held in `authorization_requests` between the sign-in and consent pages so
 * that any instance can finish it. Its pages carry a random handle (256 bits) in a hidden field; only the handle's
 * SHA-256 is stored. It lives 10 minutes and is finished once (approve, deny, cancel or an error redirect).
 */
export const AUTHORIZATION_REQUEST_TTL_SECONDS = 10 * 60;

export interface AuthorizationParameters {
  clientId: string;
  /** The verified redirect_uri: as given, or the client's only registered one when none was given. */
  redirectUri: string;
  /** Whether redirect_uri was in the request (RFC 6749 4.1.3: then the token request must repeat it). */
  redirectUriGiven: boolean;
  scopes: Scope[];
  resource: string;
  codeChallenge: string;
  state: string | null;
  nonce: string | null;
  loginHint: string | null;
  /** RFC 9449 10: the DPoP key the code is to be bound to (absent in requests saved before it was read). */
  dpopJkt?: string | null;
}

export interface PendingAuthorization {
  id: number;
  siteId: number;
  clientRef: number;
  parameters: AuthorizationParameters;
  /** The session the consent page was last shown to; only that session may answer it. */
  signInSessionId: number | null;
  expiresAt: Date;
  completedAt: Date | null;
}

interface RequestRow {
  id: number;
  site_id: number;
  handle_hash: string;
  client_ref: number;
  parameters: unknown;
  sign_in_session_id: number | null;
  expires_at: unknown;
  completed_at: unknown;
}

function fromRow(row: RequestRow): PendingAuthorization {
  return {
    id: row.id,
    siteId: row.site_id,
    clientRef: row.client_ref,
    parameters: parseJsonColumn<AuthorizationParameters>(row.parameters),
    signInSessionId: row.sign_in_session_id,
    expiresAt: requireDate(row.expires_at),
    completedAt: toDate(row.completed_at),
  };
}

/** Saves a validated request; returns its handle (shown once, in the pages) and the record. */
export async function saveAuthorizationRequest(
  db: Database,
  siteId: number,
  clientRef: number,
  parameters: AuthorizationParameters,
): Promise<{ handle: string; request: PendingAuthorization }> {
  const handle = `sgar_${randomToken(32)}`;
  const now = new Date();
  await db('authorization_requests').insert({
    site_id: siteId,
    client_ref: clientRef,
    handle_hash: sha256Hex(handle),
    parameters: JSON.stringify(parameters),
    sign_in_session_id: null,
    expires_at: new Date(now.getTime() + AUTHORIZATION_REQUEST_TTL_SECONDS * 1000),
    completed_at: null,
    created_at: now,
  });
  const request = await findAuthorizationRequest(db, siteId, handle);
  if (!request) throw new Error('the saved authorization request vanished');
  return { handle, request };
}

/** The request a handle names at this site (finished or not, expired or not), or null. */
export async function findAuthorizationRequest(db: Database, siteId: number, handle: string): Promise<PendingAuthorization | null> {
  const row = await db<RequestRow>('authorization_requests').where({ handle_hash: sha256Hex(handle), site_id: siteId }).first();
  return row ? fromRow(row) : null;
}

/** Records that the consent page was shown to this session. */
export async function bindToSession(db: Database, requestId: number, sessionId: number): Promise<void> {
  await db('authorization_requests').where({ id: requestId }).whereNull('completed_at').update({ sign_in_session_id: sessionId });
}

/** Finishes the request once: true for the caller that finished it, false if it was finished already. */
export async function completeAuthorizationRequest(db: Database, requestId: number, now: Date = new Date()): Promise<boolean> {
  const updated = await db('authorization_requests').where({ id: requestId }).whereNull('completed_at').update({ completed_at: now });
  return updated === 1;
}
