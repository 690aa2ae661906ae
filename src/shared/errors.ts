/**
 * The one error model: every failure the service reports carries an HTTP status and a public, machine-readable code.
 * Each interface renders it in the format the spec names (RFC 6749 JSON for OAuth, problem+json for admin, GraphQL errors).
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  /** Extra response headers, e.g. WWW-Authenticate. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** One failing input: an RFC 6901 JSON pointer into the input, and what is wrong there. */
export interface FieldProblem {
  pointer: string;
  message: string;
}

export class ValidationError extends AppError {
  readonly problems: readonly FieldProblem[];
  constructor(message: string, problems: readonly FieldProblem[] = [], code = 'invalid_request') {
    super(400, code, message);
    this.problems = problems;
  }
}

export class NotFoundError extends AppError {
  constructor(message: string, code = 'not_found') {
    super(404, code, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code = 'conflict') {
    super(409, code, message);
  }
}

/** 409 `slug_taken`: another `kind` of the same site has the slug (slugs name URLs, so they are unique per site). */
export class SlugTakenError extends ConflictError {
  constructor(kind: string, slug: string) {
    super(`Another ${kind} of this site already has the slug "${slug}". Choose another slug.`, 'slug_taken');
  }
}

/** A site as an unknown origin's answer may name it: its public origin and name. */
export interface SiteAddress {
  origin: string;
  name: string;
}

/**
 * An unknown origin never falls back to another site's data, with many sites in one process. When the database holds
 * exactly one site, the answer says where it is (its origin is public; with several, naming them would list tenants).
 */
export class SiteNotFoundError extends NotFoundError {
  constructor(
    readonly origin: string,
    readonly onlySite: SiteAddress | null = null,
  ) {
    super(`No school site is configured for origin ${origin}${onlySite ? `; the school site of this server is at ${onlySite.origin}` : ''}`, 'site_not_found');
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message: string) {
    super(503, 'temporarily_unavailable', message, { 'Retry-After': '1' });
  }
}

/**
 * A request shed without trying, because this process last found the database not answering (src/db/health.ts): 503
 * `temporarily_unavailable` with Retry-After at once, instead of waiting for a connection that will not come.
 */
export class DatabaseUnavailableError extends ServiceUnavailableError {
  constructor() {
    super('the database is unreachable; retry shortly');
  }
}

/** A transaction that kept losing conflicts (src/db/transaction.ts): the request gets 503 temporarily_unavailable with Retry-After, never 500. */
export class TransactionConflictError extends ServiceUnavailableError {
  constructor(attempts: number) {
    super(`the change conflicted with concurrent changes ${attempts} times in a row; retry shortly`);
  }
}
