import type { IncomingMessage } from 'node:http';
import type { Middleware, ParameterizedContext } from 'koa';
import { createHandler, type OperationArgs, type Response as HttpResponse } from 'graphql-http';
import { GraphQLError, Kind, parse, specifiedRules, validate, type DocumentNode, type ExecutionResult } from 'graphql';
import { bearerChallenge, DpopProofChallengeError, InsufficientScopeError, InvalidTokenError } from '../oauth/errors.js';
import { requireAccessToken, requireSchoolBinding, resourceRequestOf, type ResourceRequest, type VerifiedToken } from '../oauth/bearer.js';
import type { SiteState } from '../http/state.js';
import type { Services } from '../services.js';
import { AppError, NotFoundError, ValidationError } from '../shared/errors.js';
import type { Site } from '../sites/sites.js';
import type { Logger } from '../shared/logger.js';
import type { AccessTokenClient } from '../oauth/tokens/verification.js';
import { recordDeprecatedUses } from '../deprecations/usage.js';
import { deprecationTracker } from './deprecations.js';
import { compiledExecutor, withLocationsOf } from './compiled.js';
import { GraphQLContext } from './context.js';
import { LruCache } from '../shared/lru-cache.js';
import { depthAndCostRule, LIMITS } from './limits.js';
import { buildMemberSchema } from './schema.js';
import { scopesNeededBy } from './scopes.js';

export const ACCOUNT_SCOPES = ['account:read', 'account:write'] as const;

interface RequestContext {
  member: GraphQLContext;
  site: Site;
  client: AccessTokenClient;
  log: Logger;
}

/**
 * Authentication for the member API (spec, Authentication 8-9 and Errors): a token is required (no anonymous mode),
 * bound to this origin, with a resource owner. A school-bound deployment also needs the token's school_id to be this
 * site; a per-field scope gate needs one of the two account scopes here, a before-execution gate checks the scopes of
 * the requested fields before executing.
 */
async function authenticate(services: Services, site: Site, request: ResourceRequest): Promise<VerifiedToken> {
  const verified = await requireAccessToken(services.db, site, request);
  if (verified.userId === null) throw new InvalidTokenError(site.origin, 'the access token is not bound to a member');
  if (services.variant.schoolBoundMemberTokens) requireSchoolBinding(site, verified);
  if (services.variant.memberGraphql.scopeGate === 'per-field') {
    if (!ACCOUNT_SCOPES.some((scope) => verified.scopes.includes(scope))) throw new InsufficientScopeError(site.origin, ACCOUNT_SCOPES);
  }
  return verified;
}

/** Reads the body ourselves (the app-wide body parser skips this path) so that oversize and malformed JSON get GraphQL-over-HTTP answers. */
async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new AppError(413, 'request_too_large', `the request body is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new AppError(413, 'request_too_large', `the request body is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** GraphQL errors for domain failures; anything unexpected is masked (and logged by the caller's logger). */
function formatError(error: Readonly<GraphQLError | Error>): GraphQLError | Error {
  if (!(error instanceof GraphQLError) || !error.originalError || error.originalError instanceof GraphQLError) return error;
  const original = error.originalError;
  const code = original instanceof ValidationError ? 'BAD_USER_INPUT' : original instanceof NotFoundError ? 'NOT_FOUND' : original instanceof AppError ? original.code.toUpperCase() : 'INTERNAL_SERVER_ERROR';
  const message = code === 'INTERNAL_SERVER_ERROR' ? 'internal error' : original.message;
  const extensions = { code, ...(original instanceof ValidationError && original.problems.length > 0 ? { problems: original.problems } : {}) };
  return withLocationsOf(error, new GraphQLError(message, { nodes: error.nodes, path: error.path, extensions }));
}

/** The media type graphql-http answers with for this Accept header (its own negotiation), or null when none fits. */
function acceptedMediaType(accept: string | undefined): string | null {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    if (mediaType === 'application/graphql-response+json' && charset === 'charset=utf-8') return 'application/graphql-response+json; charset=utf-8';
    if ((mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*') && (charset === 'charset=utf-8' || charset === 'charset=utf8')) return 'application/json; charset=utf-8';
  }
  return null;
}

/**
 * A result without errors as graphql-http would answer it, serialised without its error replacer (which would visit
 * every value of a large answer for the Error instances only `errors` can hold). Anything else is left to graphql-http.
 */
function successResponse(req: IncomingMessage, result: ExecutionResult): HttpResponse | undefined {
  if (result.errors !== undefined || Symbol.asyncIterator in result) return undefined;
  const contentType = acceptedMediaType(req.headers.accept);
  if (contentType === null) return undefined;
  return [JSON.stringify(result), { status: 200, statusText: 'OK', headers: { 'content-type': contentType } }];
}

/** Whether the depth and cost of a document can depend on its variables (a page size given as a variable). */
function usesVariables(document: DocumentNode): boolean {
  return document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION && (definition.variableDefinitions?.length ?? 0) > 0);
}

/** The answer to an authentication failure: the OAuth error and a GraphQL `errors` entry, so either kind of client reads it. */
function renderAuthFailure(ctx: ParameterizedContext, error: AppError): void {
  ctx.status = error.status;
  ctx.set(error.headers);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: error.code, error_description: error.message, errors: [{ message: error.message, extensions: { code: error.code } }] };
}

/** POST|GET /member/graphql (variant A) or /account/graphql (variant B): graphql-http over the member schema. */
export function memberGraphqlEndpoint(services: Services): Middleware<SiteState> {
  const { variant } = services;
  const { schema, scopes } = buildMemberSchema(variant);
  const deprecations = deprecationTracker(schema);
  const validated = new LruCache<string, DocumentNode | readonly GraphQLError[]>(500);
  /** Per validated document: its depth and cost errors when they cannot depend on variables, and the scopes it needs. */
  const limitsOf = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  const scopesOf = new WeakMap<DocumentNode, Array<readonly string[]>>();

  function limitErrors(document: DocumentNode, variables: Record<string, unknown>): readonly GraphQLError[] {
    const cached = limitsOf.get(document);
    if (cached) return cached;
    const errors = validate(schema, document, [depthAndCostRule(variables)]);
    if (!usesVariables(document)) limitsOf.set(document, errors);
    return errors;
  }

  function scopesNeeded(document: DocumentNode): Array<readonly string[]> {
    let needed = scopesOf.get(document);
    if (!needed) {
      needed = scopesNeededBy(schema, scopes, document);
      scopesOf.set(document, needed);
    }
    return needed;
  }

  function documentFor(query: string): DocumentNode | readonly GraphQLError[] {
    const cached = validated.get(query);
    if (cached) return cached;
    let result: DocumentNode | readonly GraphQLError[];
    try {
      const document = parse(query, { maxTokens: LIMITS.maxTokens });
      const errors = validate(schema, document, specifiedRules);
      result = errors.length > 0 ? errors : document;
    } catch (error) {
      result = [error instanceof GraphQLError ? error : new GraphQLError(String(error))];
    }
    validated.set(query, result);
    return result;
  }

  // graphql-http types the execution context as a plain record; ours is the GraphQLContext class the resolvers expect.
  const handle = createHandler<IncomingMessage, RequestContext, Record<PropertyKey, unknown>>({
    schema,
    formatError,
    execute: compiledExecutor(schema),
    onOperation: async (req, args, result) => {
      const used = deprecations?.usedBy(args.document, args.operationName, args.variableValues ?? {}) ?? [];
      if (used.length === 0) return successResponse(req.raw, result);
      // The answer names what it used that is going away; the call is counted for the site's operators.
      const { site, client, log } = req.context;
      await recordDeprecatedUses({ db: services.db, metrics: services.metrics, log }, { siteId: site.id, client, api: 'graphql', elements: used.map((deprecation) => deprecation.element) });
      const noted: ExecutionResult = {
        ...result,
        extensions: { ...result.extensions, deprecations: used.map(({ element, sunset, replacement }) => ({ coordinate: element, sunset, replacement })) },
      };
      return successResponse(req.raw, noted) ?? noted;
    },
    onSubscribe: (req, params): OperationArgs<Record<PropertyKey, unknown>> | readonly GraphQLError[] | HttpResponse => {
      const document = documentFor(params.query);
      if (!('kind' in document)) return document;
      const variables = params.variables ?? {};
      const tooBig = limitErrors(document, variables);
      if (tooBig.length > 0) return tooBig;
      const { member, site } = req.context;
      if (variant.memberGraphql.scopeGate === 'before-execution') {
        // Spec, Errors (variant B): a valid token lacking a required scope is HTTP 403 insufficient_scope.
        const missing = scopesNeeded(document).find((needed) => !needed.some((scope) => (member.scopes as readonly string[]).includes(scope)));
        if (missing) {
          const description = `this request needs the scope ${missing.join(' or ')}`;
          return [
            JSON.stringify({ error: 'insufficient_scope', error_description: description, errors: [{ message: description, extensions: { code: 'insufficient_scope' } }] }),
            { status: 403, statusText: 'Forbidden', headers: { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': bearerChallenge(site.origin, 'insufficient_scope', description, { scope: missing.join(' ') }) } },
          ];
        }
      }
      return { schema, document, variableValues: variables, operationName: params.operationName ?? null, contextValue: member as unknown as Record<PropertyKey, unknown> };
    },
  });

  return async (ctx) => {
    const { site } = ctx.state;
    let verified: VerifiedToken;
    try {
      verified = await authenticate(services, site, resourceRequestOf(ctx, services.config));
    } catch (error) {
      if (error instanceof InvalidTokenError || error instanceof DpopProofChallengeError || error instanceof InsufficientScopeError) return renderAuthFailure(ctx, error);
      throw error;
    }
    let body: string | null = null;
    if (ctx.method === 'POST') {
      try {
        body = await readBody(ctx.req, LIMITS.maxBodyBytes);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        ctx.status = error.status;
        ctx.body = { errors: [{ message: error.message, extensions: { code: error.code } }] };
        return;
      }
    }
    const member = new GraphQLContext({ db: services.db, site, userId: verified.userId ?? 0 });
    member.scopes = verified.scopes;
    member.useTokenOwner(verified.user);
    const [responseBody, init] = await handle({
      method: ctx.method,
      url: ctx.url,
      headers: ctx.headers,
      body,
      raw: ctx.req,
      context: { member, site, client: verified.client, log: ctx.state.log },
    });
    ctx.status = init.status;
    if (init.headers) ctx.set(init.headers);
    ctx.set('Cache-Control', 'no-store');
    if (responseBody === null) {
      // graphql-http refuses a wrong Content-Type (415) or Accept (406) with a status text only: every answer of this
      // endpoint is JSON, so the refusal becomes a GraphQL error document too.
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify({ errors: [{ message: init.statusText || 'the request was refused' }] });
      return;
    }
    // A few refusals (a mutation over GET: 405) carry a JSON body but no Content-Type.
    if (!ctx.response.get('Content-Type')) ctx.type = 'application/json; charset=utf-8';
    ctx.body = responseBody;
  };
}
