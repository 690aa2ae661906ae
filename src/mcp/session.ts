import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Audience } from '../clients/scopes.js';
import { CatalogContext } from '../catalog/context.js';
import type { Scope } from '../clients/scopes.js';
import { MemberContext } from '../member/context.js';
import type { Services } from '../services.js';
import type { Logger } from '../shared/logger.js';
import type { Site } from '../sites/sites.js';

/**
 * Who is calling /mcp, as src/mcp/auth.ts established it: anonymous (no token), or a verified token of this site with
 * its scopes and, for a user-bound token, the member it acts for.
 */
export interface McpCaller {
  /** The SDK's view of the verified token (handed to the transport as `req.auth`); null for an anonymous request. */
  authInfo: AuthInfo | null;
  /** The member: the token's `sub` (the user id, as userinfo reports it); null when anonymous or not bound to a user. */
  userId: number | null;
  /** The audience of the token's client: member tokens can be stepped up to more account scopes, operator tokens never. */
  audience: Audience | null;
  scopes: readonly Scope[];
  /** oauth_clients.id of the token's client, for the usage count (docs/usage.md); 0 when anonymous. */
  clientRef: number;
}

export const ANONYMOUS: McpCaller = { authInfo: null, userId: null, audience: null, scopes: [], clientRef: 0 };

/** One /mcp request: a fresh MCP server and transport are built for it and thrown away with it (stateless mode). */
export interface McpSession {
  services: Services;
  site: Site;
  log: Logger;
  caller: McpCaller;
  /** One clock for the whole request. */
  now: Date;
}

/** What a tool runs with: the session, and the domain contexts built from it on first use. */
export class ToolContext {
  readonly session: McpSession;
  private catalogContext: CatalogContext | undefined;
  private memberContext: MemberContext | undefined;

  constructor(session: McpSession) {
    this.session = session;
  }

  get site(): Site {
    return this.session.site;
  }

  /** The public catalogue of the request's site. */
  catalog(): CatalogContext {
    this.catalogContext ??= new CatalogContext({ db: this.session.services.db, site: this.session.site, now: this.session.now });
    return this.catalogContext;
  }

  /**
   * The member domain layer (shared with the member GraphQL API) for the caller. Only user-bound tools call it, and
   * they are registered only for a caller with a member (src/mcp/server.ts).
   */
  member(): MemberContext {
    const { userId } = this.session.caller;
    if (userId === null) throw new Error('a user-bound tool ran without a user-bound token');
    this.memberContext ??= new MemberContext({ db: this.session.services.db, site: this.session.site, userId, now: this.session.now });
    return this.memberContext;
  }
}
