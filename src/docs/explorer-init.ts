/**
 * The member API explorer's start-up script, served as `/docs/assets/member-api-explorer.js` (a file, so the page's
 * CSP allows no inline script). It reads the endpoint and the schema's URL from the container's data attributes,
 * loads the schema (an introspection result from this origin, so the documentation and completion work before any
 * token is pasted) and mounts GraphiQL on the site's member endpoint. The Headers tab starts open with an
 * `Authorization` line to complete; headers are not persisted (`shouldPersistHeaders: false`), so a pasted token stays
 * in the tab, never in localStorage.
 */
export const EXPLORER_INIT_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('graphiql');
  var endpoint = root.getAttribute('data-endpoint');
  var headers = '{\\n  "Authorization": "Bearer PASTE-A-MEMBER-ACCESS-TOKEN"\\n}';
  var query = '# Paste a member access token in the Headers tab below, then run this query.\\n' +
    'query Viewer {\\n  viewer {\\n    id\\n    name\\n    email\\n  }\\n}\\n';
  function show(message) {
    root.textContent = message;
  }
  fetch(root.getAttribute('data-schema-url'), { credentials: 'omit' })
    .then(function (response) {
      if (!response.ok) throw new Error('the schema answered HTTP ' + response.status);
      return response.json();
    })
    .then(function (introspection) {
      var fetcher = GraphiQL.createFetcher({ url: endpoint });
      ReactDOM.createRoot(root).render(React.createElement(GraphiQL, {
        fetcher: fetcher,
        schema: introspection,
        defaultQuery: query,
        defaultHeaders: headers,
        isHeadersEditorEnabled: true,
        shouldPersistHeaders: false,
        defaultEditorToolsVisibility: 'headers'
      }));
    })
    .catch(function (error) {
      show('The explorer could not start: ' + error.message);
    });
})();
`;

/** The explorer page's own lines around GraphiQL, served as `/docs/assets/member-api-explorer.css`. */
export const EXPLORER_PAGE_STYLE = `html,body{height:100%;margin:0}
body{display:flex;flex-direction:column}
.docs-chrome{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:.6rem 1rem;color:#52606d;font-size:.9rem;line-height:1.4}
.docs-chrome a{color:#2457c5}
.docs-chrome code{background:#f1f3f5;padding:0 .25rem;border-radius:3px}
#graphiql{flex:1;min-height:0}
`;
