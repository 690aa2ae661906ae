import type { Queryable } from '../db/queries.js';

/**
 * Who made an admin write: a person (an operator's token, the admin area, the CLI) or a service client acting as
 * itself with a client_credentials token (RFC 6749 4.4). Stored as a `*_by_user_id` column or its `*_by_client_ref`
 * sibling; deleting the user or the client forgets the author and keeps the row.
 */
export type Actor = { kind: 'user'; userId: number } | { kind: 'client'; clientRef: number };

/** An actor as read back for a representation: a client is named by its public client_id. */
export type RecordedActor = { kind: 'user'; userId: number } | { kind: 'client'; clientId: string } | null;

/** The user id and client ref columns' values for `actor`. */
export function actorIds(actor: Actor | undefined): { userId: number | null; clientRef: number | null } {
  if (actor === undefined) return { userId: null, clientRef: null };
  return actor.kind === 'user' ? { userId: actor.userId, clientRef: null } : { userId: null, clientRef: actor.clientRef };
}

/** The recorded actor of a row, from its user id column, its client ref column and the refs' client ids. */
export function recordedActor(userId: number | string | null | undefined, clientRef: number | string | null | undefined, clientIds: ReadonlyMap<number, string>): RecordedActor {
  if (userId !== null && userId !== undefined) return { kind: 'user', userId: Number(userId) };
  if (clientRef === null || clientRef === undefined) return null;
  const clientId = clientIds.get(Number(clientRef));
  return clientId === undefined ? null : { kind: 'client', clientId };
}

/** The client_id of each client ref, in one statement. */
export async function clientIdsByRef(db: Queryable, refs: ReadonlyArray<number | string | null | undefined>): Promise<Map<number, string>> {
  const wanted = [...new Set(refs.filter((ref): ref is number | string => ref !== null && ref !== undefined).map(Number))];
  if (wanted.length === 0) return new Map();
  const rows: Array<{ id: number | string; client_id: string }> = await db('oauth_clients').whereIn('id', wanted).select('id', 'client_id');
  return new Map(rows.map((row) => [Number(row.id), row.client_id]));
}
