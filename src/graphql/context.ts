import type { Scope } from '../clients/scopes.js';
import { MemberContext } from '../member/context.js';

/** What every member GraphQL resolver receives (graphql-codegen's `contextType`): the member context plus the token's scopes. */
export class GraphQLContext extends MemberContext {
  scopes: readonly Scope[] = [];
}
