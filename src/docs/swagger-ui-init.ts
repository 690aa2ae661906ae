/**
 * The Swagger UI page's start-up script, served as `/docs/assets/admin-api.js` (a file, not inline, so the page's
 * CSP can say `script-src 'self'`). It renders the site's own /openapi.json (same origin, relative URL, from the
 * container's data attribute) with the plain layout (no top bar with a URL box), its tags collapsed with a filter box
 * (Swagger UI 5 stops rendering a page of about 150 expanded operations part-way, silently), and `validatorUrl: null` turns off
 * the badge that would send the document to validator.swagger.io: the page makes no request off its origin.
 * "Authorize" runs the authorization-code flow with PKCE through /docs/oauth2-redirect.html, for an operator client
 * that registered that redirect URI; this server requires `resource={origin}` (RFC 8707) on the authorization request
 * (initOAuth's query parameters) and on the token request (the request interceptor adds it to any grant form that
 * lacks it: Swagger UI has no setting for token-request parameters).
 */
export const SWAGGER_UI_INIT_SCRIPT = `'use strict';
function withResource(request) {
  var body = request.body;
  if (typeof body === 'string' && /(^|&)grant_type=/.test(body) && !/(^|&)resource=/.test(body)) {
    request.body = body + '&resource=' + encodeURIComponent(window.location.origin);
  }
  return request;
}
window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    domNode: root,
    deepLinking: true,
    validatorUrl: null,
    displayOperationId: true,
    docExpansion: 'none',
    filter: true,
    defaultModelsExpandDepth: 1,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    oauth2RedirectUrl: window.location.origin + root.getAttribute('data-oauth2-redirect-path'),
    requestInterceptor: withResource
  });
  window.ui.initOAuth({
    usePkceWithAuthorizationCodeGrant: true,
    additionalQueryStringParams: { resource: window.location.origin }
  });
});
`;

/** The admin page's own lines around Swagger UI, served as `/docs/assets/admin-api.css` (no inline style on the page). */
export const SWAGGER_UI_PAGE_STYLE = `body{margin:0;background:#fafafa}
.docs-chrome{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1rem 1.25rem 0;color:#52606d}
.docs-chrome a{color:#2457c5}
`;
