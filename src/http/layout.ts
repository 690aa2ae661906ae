import { html, type Html } from './html.js';

/** The look every server-rendered page shares. */
const BASE_STYLE = html`<style>
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#1f2933;line-height:1.5}
h1{font-size:1.6rem}a{color:#2457c5}code{background:#f1f3f5;padding:.1rem .3rem;border-radius:3px}
</style>`;

/** A whole server-rendered page, as the response body; works without JavaScript. */
export function layout(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${BASE_STYLE}
</head>
<body>
${body}
</body>
</html>
`.toString();
}
