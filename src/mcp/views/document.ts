import { createHash } from 'node:crypto';
import { html, trustedHtml } from '../../http/html.js';
import { BRIDGE_SCRIPT } from './bridge.js';
import { DOM_SCRIPT } from './dom.js';
import { VIEW_STYLE } from './styles.js';

/** One view: its title and its own script (run after the bridge and the shared helpers). */
export interface ViewSource {
  title: string;
  /** Browser JavaScript; `viewBridge` and the helpers of src/mcp/views/dom.ts are in scope. */
  script: string;
}

/** A CSP source for inline text: its SHA-256, so only exactly this text runs (or styles the page). */
function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** Inline script or style text must not be able to end its element or open a comment. */
function checkedInline(kind: string, text: string): string {
  if (/<\/|<!--/.test(text)) throw new Error(`the inline ${kind} of a view must not contain "</" or "<!--"`);
  return text;
}

/**
 * The HTML document of a view: everything inline, nothing loaded. Its own Content-Security-Policy (beside the one the
 * host builds from the resource's `_meta.ui.csp`) allows exactly its one script and its one stylesheet by hash and
 * nothing else: no fetch, no image, no font, no frame, no form, no base URL. Built once per view when the module
 * loads; every read serves the same string.
 */
export function viewDocument(view: ViewSource): string {
  const script = checkedInline('script', `(function () {\n'use strict';\n${BRIDGE_SCRIPT}\n${DOM_SCRIPT}\n${view.script}\n})();\n`);
  const style = checkedInline('style', VIEW_STYLE);
  const policy = [`default-src 'none'`, `script-src ${hashSource(script)}`, `style-src ${hashSource(style)}`, `base-uri 'none'`, `form-action 'none'`].join('; ');
  // trustedHtml: this module's constant stylesheet (checked above), never anyone's text; escaped, it would break.
  const styleMarkup = trustedHtml(style);
  // trustedHtml: the views' constant script (checked above), never anyone's text; a script element's text is not decoded.
  const scriptMarkup = trustedHtml(script);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="color-scheme" content="light dark">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${view.title}</title>
<style>${styleMarkup}</style>
</head>
<body>
<main id="view"><p role="status">Waiting for the data from your assistant…</p></main>
<script>${scriptMarkup}</script>
</body>
</html>
`.toString();
}
