import type { IncomingMessage } from 'node:http';
import { createHandler, type Handler, type OperationArgs, type Request, type RequestParams, type Response as HttpResponse } from 'graphql-http';
import type { DocumentNode, GraphQLError } from 'graphql';
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
import { cacheableAnswer } from '../trusted-documents/cacheable-answer.js';
import { registeredDocumentNotFound, trustedDocumentRequired } from '../trusted-documents/refusals.js';
import { registeredDocuments, type RegisteredDocument } from '../trusted-documents/registered-documents.js';
import { documentReferenceOf, parseTrustedDocumentParams, type DocumentReference } from '../trusted-documents/request-params.js';

/** What one request hands the handler: the resolvers' context, and who is calling for the deprecation count. */
export interface MemberRequestContext {
  member: GraphQLContext;
  site: Site;
  client: AccessTokenClient;
  log: Logger;
}

type Admission = OperationArgs<Record<PropertyKey, unknown>> | readonly GraphQLError[] | HttpResponse;

/**
 * graphql-http over the member schema, with the member API's own steps in its hooks: a registered document named by
 * its id (docs/trusted-documents.md) or a document's text where the site allows it, documents admitted from the cache
 * within the limits, the scope gate before execution, compiled execution, the usage count and the deprecation notice, the serialising
 * fast path for answers without errors, and a cacheable answer to a GET by id.
 */
export function memberGraphqlHandler(services: Pick<Services, 'db' | 'metrics' | 'config'>, { schema }: MemberSchema, gate: ScopeGate): Handler<IncomingMessage, MemberRequestContext> {
  const documents = memberDocuments(schema);
  const registered = registeredDocuments(services.db, documents, services.config.siteCacheSeconds * 1000);
  const notice = operationNotice(services, schema);
  /** The requests served a registered document by id: their GET answers may be cached. */
  const servedById = new WeakSet<Request<IncomingMessage, MemberRequestContext>>();

  function admitted(req: Request<IncomingMessage, MemberRequestContext>, params: RequestParams, document: DocumentNode | readonly GraphQLError[]): Admission {
    if (!('kind' in document)) return document;
    const { member, site } = req.context;
    const variables = params.variables ?? {};
    return gate.refusal(site, document, member.scopes) ?? { schema, document, variableValues: variables, operationName: params.operationName ?? null, contextValue: member as unknown as Record<PropertyKey, unknown> };
  }

  /** A document's text: refused for a client the site holds to registered documents, else admitted from the cache. */
  function admittedText(req: Request<IncomingMessage, MemberRequestContext>, params: RequestParams, query: string): Admission {
    const refusal = trustedDocumentRequired(req.context.site, req.context.client);
    if (refusal) return [refusal];
    return admitted(req, params, documents.admit(query, params.variables ?? {}));
  }

  function admittedById(req: Request<IncomingMessage, MemberRequestContext>, params: RequestParams, reference: DocumentReference): Admission | Promise<Admission> {
    const { site, client } = req.context;
    const found = registered.find(site.id, client.ref, reference.documentId);
    // Synchronous when the document is cached: a request by id awaits nothing a request by text does not.
    return found instanceof Promise ? found.then((document) => admittedRegistered(req, params, reference, document)) : admittedRegistered(req, params, reference, found);
  }

  function admittedRegistered(req: Request<IncomingMessage, MemberRequestContext>, params: RequestParams, reference: DocumentReference, document: RegisteredDocument | null): Admission {
    if (document === null) {
      // Apollo's second attempt sends the text with its id: a text request like any other when the id is not registered.
      return reference.query === null ? [registeredDocumentNotFound(reference.documentId)] : admittedText(req, params, reference.query);
    }
    servedById.add(req);
    return admitted(req, params, 'kind' in document ? documents.withinLimits(document, params.variables ?? {}) : document);
  }

  // graphql-http types the execution context as a plain record; ours is the GraphQLContext class the resolvers expect.
  return createHandler<IncomingMessage, MemberRequestContext, Record<PropertyKey, unknown>>({
    schema,
    formatError,
    execute: tracedExecutor(compiledExecutor(schema)),
    parseRequestParams: parseTrustedDocumentParams,
    onOperation: async (req, args, result) => {
      // A field whose store could not answer makes the whole answer a 503, as on every interface (src/graphql/errors.ts).
      const unavailable = unavailableResponse(result);
      if (unavailable) return unavailable;
      const { site, client } = req.context;
      const noted = notice(args, result, { siteId: site.id, clientRef: client.ref });
      const success = successResponse(req.raw.headers.accept, noted);
      if (success === undefined) return noted;
      return req.method === 'GET' && servedById.has(req) ? cacheableAnswer(success) : success;
    },
    onSubscribe: (req, params): Admission | Promise<Admission> => {
      const reference = documentReferenceOf(params);
      return reference === undefined ? admittedText(req, params, params.query) : admittedById(req, params, reference);
    },
  });
}
