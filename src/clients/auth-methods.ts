/** RFC 6749 2.3 and OIDC Core 9: how a client authenticates at the token, revocation and introspection endpoints. */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];
