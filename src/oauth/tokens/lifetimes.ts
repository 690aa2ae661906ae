/** Spec, Limits: a member access token lives two hours. */
export const ACCESS_TOKEN_TTL_SECONDS = 2 * 60 * 60;
/** Spec, Limits: an id_token lives 10 minutes. */
export const ID_TOKEN_TTL_SECONDS = 10 * 60;
/** Not shown in the spec: authorization codes live one minute (RFC 6749 4.1.2 recommends at most ten). */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;
/** Not shown in the spec: a refresh token lives 30 days; each rotation issues a fresh one (docs/oauth.md). */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
