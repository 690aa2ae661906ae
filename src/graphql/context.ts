import type { User } from '../accounts/users.js';
import type { Scope } from '../clients/scopes.js';
import { MemberContext } from '../member/context.js';
import type { ViewerRecord } from '../member/viewer.js';

/** What every member GraphQL resolver receives (graphql-codegen's `contextType`): the member context plus the token's scopes. */
export class GraphQLContext extends MemberContext {
  scopes: readonly Scope[] = [];
  /** The member as read with the access token, so `viewer` costs no query of its own; null when it was not read. */
  viewer: ViewerRecord | null = null;

  /** Takes the token owner's account, read while verifying the token, as the viewer (the same record `viewerIdentity` builds). */
  useTokenOwner(user: User | null): void {
    if (user === null || user.id !== this.userId) return;
    const name = user.name?.trim() ?? '';
    this.viewer = { id: user.id, name: name === '' ? null : name, email: user.email, avatarUrl: user.avatarUrl || null };
  }
}
