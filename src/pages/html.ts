/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);
}

/** A whole server-rendered page; works without JavaScript. */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#1f2933;line-height:1.5}
h1{font-size:1.6rem}a{color:#2457c5}code{background:#f1f3f5;padding:.1rem .3rem;border-radius:3px}
</style>
</head>
<body>
${body}
</body>
</html>
`;
}
