import type { IncomingMessage } from 'node:http';
import { createHandler, type Handler, type OperationArgs, type Response as HttpResponse } from 'graphql-http';
import type { GraphQLError } from 'graphql';
import type { AccessTokenClient } from '../../oauth/tokens/verification.js';
import type { Services } from '../../services.js';
import type { Logger } from '../../shared/logger.js';
import type { Site } from '../../sites/sites.js';
import { compiledExecutor } from '../compiled.js';
import type { GraphQLContext } from '../context.js';
import { operationNotice } from '../deprecation-notice.js';
import { memberDocuments } from '../documents.js';
import type { MemberSchema } from '../schema.js';
import type { ScopeGate } from '../scope-gate.js';
import { formatError, unavailableResponse } from '../errors.js';
import { successResponse } from './success-response.js';
import { tracedExecutor } from '../tracing.js';

/** What one request hands the handler: the resolvers' context, and who is calling for the deprecation count. */
export interface MemberRequestContext {
  member: GraphQLContext;
  site: Site;
  client: AccessTokenClient;
  log: Logger;
}

/**
 * graphql-http over the member schema, with the member API's own steps in its hooks: documents admitted from the
 * cache within the limits, the scope gate before execution, compiled execution, the deprecation notice, and the
 * serialising fast path for answers without errors.
 */
export function memberGraphqlHandler(services: Pick<Services, 'db' | 'metrics'>, { schema }: MemberSchema, gate: ScopeGate): Handler<IncomingMessage, MemberRequestContext> {
  const documents = memberDocuments(schema);
  const notice = operationNotice(services, schema);
  // graphql-http types the execution context as a plain record; ours is the GraphQLContext class the resolvers expect.
  return createHandler<IncomingMessage, MemberRequestContext, Record<PropertyKey, unknown>>({
    schema,
    formatError,
    execute: tracedExecutor(compiledExecutor(schema)),
    onOperation: async (req, args, result) => {
      // A field whose store could not answer makes the whole answer a 503, as on every interface (src/graphql/errors.ts).
      const unavailable = unavailableResponse(result);
      if (unavailable) return unavailable;
      const { site, client } = req.context;
      const noted = notice(args, result, { siteId: site.id, clientRef: client.ref });
      return successResponse(req.raw.headers.accept, noted) ?? noted;
    },
    onSubscribe: (req, params): OperationArgs<Record<PropertyKey, unknown>> | readonly GraphQLError[] | HttpResponse => {
      const variables = params.variables ?? {};
      const document = documents.admit(params.query, variables);
      if (!('kind' in document)) return document;
      const { member, site } = req.context;
      return gate.refusal(site, document, member.scopes) ?? { schema, document, variableValues: variables, operationName: params.operationName ?? null, contextValue: member as unknown as Record<PropertyKey, unknown> };
    },
  });
}
