import addFormats from 'ajv-formats';
import type { Middleware } from 'koa';
import { OpenAPIBackend, type Context, type Document } from 'openapi-backend';
import type { SiteContext, SiteState } from '../../http/state.js';
import type { Services } from '../../services.js';
import { ADMIN_API_BASE_PATH, readContract, readOperationPolicies, type OperationId, type OperationPolicy } from '../contract.js';
import { ADMIN_HANDLERS } from '../handlers/index.js';
import { countDeprecatedUses } from '../../deprecations/usage.js';
import { elementBundle, recordUse } from '../../usage/tally.js';
import { acceptedBody, readRequestBody, type RequestBodyState } from './body.js';
import { deprecatedOperations, type DeprecatedOperation } from './deprecation-notice.js';
import { requireFeature } from './features.js';
import { AdminProblem, InvalidRequestProblem, PreconditionRequiredProblem, sendProblem } from './problems.js';
import { resourceRequestOf } from '../../oauth/bearer.js';
import { authenticateOperator, principalLogFields, type OperatorPrincipal } from './security.js';
import type { AdminHandler, AdminRequest } from './types.js';
import { validationFailure } from './validation-errors.js';
import { logFailure } from '../../shared/failure-log.js';

/**
 * The REST admin API under /api/admin/v1, driven by openapi/admin.yaml through openapi-backend (docs/admin-api.md).
 * Per request, in this order:
 * 1. routing by the contract's paths (unknown path: 404, known path with another method: 405);
 * 2. the `oauth2` security handler: the operation's one scope, read from its `security` at start-up, checked with the
 *    shared bearer verifier for an operator of this site (401 invalid_token, 403 insufficient_scope);
 * 3. the operation's `x-schoolgate-feature` (409 while the site has it off), then its body's media type (415);
 * 4. validation of path, query, headers and body against the contract (400 with pointers; a missing If-Match 428);
 * 5. the operation's handler (handlers/<resource>/<operation>.ts), scoped to ctx.state.site.
 * Every failure is RFC 9457 application/problem+json. Every answer of a deprecated operation carries its Deprecation,
 * Sunset and Link headers. Every call that reaches its handler is counted for the caller's client (docs/usage.md):
 * refused calls (authentication, scope, feature, validation) are not uses of the operation.
 */

/** What one request carries through openapi-backend's handlers (passed as their extra argument). */
interface AdminCall {
  ctx: SiteContext;
  bodyState: RequestBodyState;
  body?: unknown;
  principal?: OperatorPrincipal;
  /** Set once routing has matched a deprecated operation. */
  deprecated?: DeprecatedOperation;
}

interface WrittenResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function requirePolicy(policies: ReadonlyMap<OperationId, OperationPolicy>, operationId: string | undefined): OperationPolicy {
  const policy = operationId === undefined ? undefined : policies.get(operationId as OperationId);
  if (!policy) throw new Error(`the admin API has no policy for operation ${String(operationId)}`);
  return policy;
}

/** Start-up check: the contract's operations and ADMIN_HANDLERS are the same set. */
function checkHandlersCoverContract(policies: ReadonlyMap<OperationId, OperationPolicy>): void {
  const inContract = [...policies.keys()].sort();
  const handled = Object.keys(ADMIN_HANDLERS).sort();
  const missing = inContract.filter((id) => !handled.includes(id));
  const extra = handled.filter((id) => !(inContract as string[]).includes(id));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(`the admin handlers do not match openapi/admin.yaml (no handler: ${missing.join(', ') || '-'}; not in the contract: ${extra.join(', ') || '-'})`);
  }
}

function sendResponse(ctx: SiteContext, response: WrittenResponse): void {
  ctx.status = response.status;
  for (const [name, value] of Object.entries(response.headers ?? {})) ctx.set(name, value);
  ctx.set('Cache-Control', 'no-store');
  if (response.body === undefined) {
    ctx.body = null;
  } else {
    ctx.body = JSON.stringify(response.body);
    ctx.type = 'application/json';
  }
}

export function adminApi(services: Services): Middleware<SiteState> {
  const { db, logger, metrics } = services;
  // Two copies of the parsed YAML: this one for the policies and the deprecations, another for openapi-backend, which
  // dereferences it in place.
  const contract = readContract();
  const policies = readOperationPolicies(contract);
  checkHandlersCoverContract(policies);
  const deprecated = deprecatedOperations(contract);

  /** Binds one handler: the validated request, typed as the contract says, scoped to the request's site. */
  function operationHandler<K extends OperationId>(operationId: K, handler: AdminHandler<K>) {
    const policy = requirePolicy(policies, operationId);
    const used = elementBundle('admin', operationId);
    const deprecatedElement = deprecated.get(operationId)?.deprecation.element;
    return async (c: Context, call: AdminCall): Promise<WrittenResponse> => {
      const { ctx } = call;
      if (!call.principal) throw new Error(`${operationId} reached its handler without a principal`);
      // Counted in memory; the usage flush job writes it (src/usage/tally.ts).
      recordUse(db, ctx.state.site.id, call.principal.token.client.ref, used);
      if (deprecatedElement !== undefined) countDeprecatedUses(metrics, 'admin', [deprecatedElement]);
      const headers: Record<string, string> = {};
      for (const name of policy.headerParameters) {
        const value = ctx.get(name);
        if (value !== '') headers[name] = value;
      }
      // The contract validated these (query values coerced to their schema types; integer path values converted here).
      const path: Record<string, string | number> = { ...c.request.params };
      for (const name of policy.integerPathParameters) path[name] = Number(path[name]);
      const request: AdminRequest<K> = {
        operationId,
        site: ctx.state.site,
        db,
        variant: services.variant,
        usageRetentionDays: services.config.usageRetentionDays,
        principal: call.principal,
        log: ctx.state.log,
        baseUrl: `${ctx.state.site.origin}${ADMIN_API_BASE_PATH}`,
        path: path as AdminRequest<K>['path'],
        query: c.request.query as AdminRequest<K>['query'],
        headers: headers as AdminRequest<K>['headers'],
        body: call.body as AdminRequest<K>['body'],
        ctx,
      };
      return handler(request);
    };
  }

  const operationHandlers: Record<string, (c: Context, call: AdminCall) => Promise<WrittenResponse>> = {};
  for (const operationId of policies.keys()) operationHandlers[operationId] = operationHandler(operationId, ADMIN_HANDLERS[operationId] as AdminHandler<typeof operationId>);

  const api = new OpenAPIBackend({
    definition: readContract() as unknown as Document,
    strict: true,
    // Quick start: no meta-schema validation of the document at every start (test/admin-contract.test.ts runs the
    // full strict init once, and CI lints the YAML), a synchronous dereference, and each operation's request
    // validators compiled on its first request instead of all 120 up front (seconds of Ajv per process start).
    quick: true,
    apiRoot: ADMIN_API_BASE_PATH,
    coerceTypes: true,
    ajvOpts: { allErrors: true },
    customizeAjv: (ajv) => {
      addFormats.default(ajv);
      return ajv;
    },
    securityHandlers: {
      // The first step that knows the matched operation, and it runs for every operation (each has a security requirement).
      oauth2: async (c: Context, call: AdminCall) => {
        const policy = requirePolicy(policies, c.operation.operationId);
        // Named before authentication can refuse, so a 401 or 403 is counted under the operation's route, too.
        call.ctx.state.routeTemplate = `${ADMIN_API_BASE_PATH}${policy.path}`;
        call.deprecated = deprecated.get(policy.operationId);
        call.principal = await authenticateOperator(db, call.ctx.state.site, resourceRequestOf(call.ctx, services.config), policy.scope);
        call.ctx.state.clientId = call.principal.token.client.clientId;
        // Every log line of the operation (its writes' included) names who made it: a person or a service client.
        call.ctx.state.log = call.ctx.state.log.child(principalLogFields(call.principal));
        return call.principal;
      },
    },
    handlers: {
      notFound: (_c: Context, call: AdminCall) => {
        throw new AdminProblem(404, 'not_found', `The admin API has no operation at ${call.ctx.method} ${call.ctx.path}.`);
      },
      methodNotAllowed: (c: Context, call: AdminCall) => {
        const operations = HTTP_METHODS.map((method) => c.api.router.matchOperation({ method, path: call.ctx.path, headers: {} }));
        const allowed = HTTP_METHODS.filter((_method, index) => operations[index] !== undefined).map((method) => method.toUpperCase());
        const path = operations.find((operation) => operation !== undefined)?.path;
        if (path !== undefined) call.ctx.state.routeTemplate = `${ADMIN_API_BASE_PATH}${path}`;
        throw new AdminProblem(405, 'method_not_allowed', `${call.ctx.method} is not allowed on ${call.ctx.path}; allowed: ${allowed.join(', ')}.`, [], { Allow: allowed.join(', ') });
      },
      unauthorizedHandler: (c: Context) => {
        const result: unknown = (c.security as Record<string, unknown>).oauth2;
        const error = typeof result === 'object' && result !== null && 'error' in result ? (result as { error: unknown }).error : undefined;
        throw error ?? new Error('the oauth2 security handler refused without an error');
      },
      postSecurityHandler: (c: Context, call: AdminCall) => {
        if (!c.security.authorized) return;
        const policy = requirePolicy(policies, c.operation.operationId);
        if (policy.feature !== null) requireFeature(call.ctx.state.site, policy.feature);
        call.body = acceptedBody(call.bodyState, policy.requestMediaTypes, call.ctx.method);
      },
      validationFail: (c: Context) => {
        const policy = requirePolicy(policies, c.operation.operationId);
        const failure = validationFailure(c.validation.errors ?? [], policy.headerParameters);
        if (failure.missingHeaders.includes('If-Match')) throw new PreconditionRequiredProblem();
        throw new InvalidRequestProblem(`The request does not match the contract of ${policy.operationId}.`, failure.errors);
      },
      // Unreachable while start-up insists on a handler per operation; kept so a gap answers problem+json, not a crash.
      notImplemented: (c: Context) => {
        throw new AdminProblem(501, 'not_implemented', `${String(c.operation.operationId)} has no handler in this server.`);
      },
      ...operationHandlers,
    },
  });
  const ready = api.init().then(() => undefined);
  ready.catch((error: unknown) => logger.fatal({ err: error }, 'the admin API contract could not be loaded'));

  return async (ctx) => {
    const call: AdminCall = { ctx, bodyState: { kind: 'none' } };
    try {
      await ready;
      // The matched operation's body limit (a trusted-documents manifest may be megabytes); unknown paths read 64 KB.
      const matched = api.router.matchOperation({ method: ctx.method, path: ctx.path, headers: {} });
      call.bodyState = await readRequestBody(ctx, matched?.operationId === undefined ? undefined : policies.get(matched.operationId as OperationId)?.maxBodyBytes);
      const response = (await api.handleRequest(
        {
          method: ctx.method,
          path: ctx.path,
          headers: ctx.headers as Record<string, string | string[]>,
          query: ctx.query as Record<string, string | string[]>,
          body: call.bodyState.kind === 'json' ? (call.bodyState.value as Record<string, unknown>) : undefined,
        },
        call,
      )) as WrittenResponse;
      sendResponse(ctx, response);
    } catch (raw) {
      const problem = sendProblem(ctx, raw instanceof URIError ? new InvalidRequestProblem('The request path is not valid percent-encoding.') : raw);
      if (problem.status >= 500) logFailure(ctx.state.log, raw, 'admin API request failed');
    }
    if (call.deprecated) {
      const { site } = ctx.state;
      ctx.set(call.deprecated.headers(site.origin));
    }
  };
}
