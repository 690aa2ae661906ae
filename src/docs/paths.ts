/** Where the reference pages live on every site, rendered from the contracts. */
export const DOCS_PATHS = {
  index: '/docs',
  adminApi: '/docs/admin-api',
  memberApi: '/docs/member-api',
  /** GraphiQL over the site's member GraphQL endpoint, with the files from /docs/assets (no CDN). */
  memberApiExplorer: '/docs/member-api/explorer',
  /** Swagger UI's OAuth 2.0 redirect page: the redirect URI an operator registers to use "Authorize" on /docs/admin-api. */
  oauth2Redirect: '/docs/oauth2-redirect.html',
  /** Swagger UI's files and the admin page's start-up script: `/docs/assets/<name>`, an allowlist of names. */
  assets: '/docs/assets',
} as const;
