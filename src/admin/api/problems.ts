import { STATUS_CODES } from 'node:http';
import type { ParameterizedContext } from 'koa';
import type { components } from '../../../generated/admin-api.js';
import type { RequestState } from '../../http/state.js';
import { AppError, ValidationError } from '../../shared/errors.js';
import { classifyFailure } from '../../shared/failure.js';

export type Problem = components['schemas']['Problem'];
export type ProblemError = components['schemas']['ProblemError'];

/**
 * An admin API failure rendered as RFC 9457 problem details (`Problem` in the contract). `errors` lists the failing
 * body members (JSON pointers) or parameters (names) of a 400 `invalid_request`.
 */
export class AdminProblem extends AppError {
  readonly errors: readonly ProblemError[];
  constructor(status: number, code: string, detail: string, errors: readonly ProblemError[] = [], headers: Record<string, string> = {}) {
    super(status, code, detail, headers);
    this.errors = errors;
  }
}

export class InvalidRequestProblem extends AdminProblem {
  constructor(detail: string, errors: readonly ProblemError[] = []) {
    super(400, 'invalid_request', detail, errors);
  }
}

export class PreconditionFailedProblem extends AdminProblem {
  constructor(detail = 'If-Match does not match the current ETag: the resource changed since it was read. Read it again and reapply the change.') {
    super(412, 'precondition_failed', detail);
  }
}

export class PreconditionRequiredProblem extends AdminProblem {
  constructor() {
    super(428, 'precondition_required', 'This change needs an If-Match header with the ETag of the representation it is based on. Read the resource, then send its ETag as If-Match.', [
      { parameter: 'If-Match', message: 'is required' },
    ]);
  }
}

/** 415; for PATCH with the media types it takes in Accept-Patch (RFC 5789 2.2). */
export class UnsupportedMediaTypeProblem extends AdminProblem {
  constructor(accepted: readonly string[], method: string) {
    super(415, 'unsupported_media_type', `The request body must be ${accepted.join(' or ')}.`, [], method.toUpperCase() === 'PATCH' ? { 'Accept-Patch': accepted.join(', ') } : {});
  }
}

/**
 * Codes the shared domain layer uses, as the admin contract names them: a lost compare-and-set on `version` is 412,
 * an unknown client is `not_found`, and any input rule the domain checks is `invalid_request` with its pointers.
 */
function fromDomainError(error: AppError): AdminProblem {
  if (error instanceof AdminProblem) return error;
  if (error instanceof ValidationError) {
    const code = error.code === 'invalid_cursor' ? 'invalid_cursor' : 'invalid_request';
    return new AdminProblem(400, code, error.message, error.problems.map(({ pointer, message }) => ({ pointer, message })));
  }
  if (error.status === 409 && error.code === 'version_mismatch') return new PreconditionFailedProblem();
  if (error.status === 404) return new AdminProblem(404, 'not_found', error.message);
  return new AdminProblem(error.status, error.code, error.message, [], { ...error.headers });
}

/** The admin API's format for any failure, classified by the one classifier (src/shared/failure.ts). */
export function toProblem(raw: unknown): AdminProblem {
  return fromDomainError(classifyFailure(raw).error);
}

export function problemBody(problem: AdminProblem, instance: string): Problem {
  return {
    type: `urn:schoolgate:problem:${problem.code}`,
    title: STATUS_CODES[problem.status] ?? 'Error',
    status: problem.status,
    detail: problem.message,
    instance,
    code: problem.code,
    ...(problem.errors.length > 0 ? { errors: [...problem.errors] } : {}),
  };
}

/** Writes `application/problem+json` (never cached: admin answers are per operator). */
export function sendProblem(ctx: ParameterizedContext, raw: unknown): AdminProblem {
  const problem = toProblem(raw);
  (ctx.state as Partial<RequestState>).errorCode = problem.code;
  ctx.status = problem.status;
  ctx.set(problem.headers);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = JSON.stringify(problemBody(problem, ctx.path));
  ctx.type = 'application/problem+json';
  return problem;
}
