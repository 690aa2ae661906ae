/** The endpoints that authenticate clients (RFC 6749 2.3, RFC 7009 2.1, RFC 7662 2.1). */
export type ClientAuthEndpoint = 'token' | 'revocation' | 'introspection';
