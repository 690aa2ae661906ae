/**
 * The views' stylesheet. Colours, fonts and radii are the MCP Apps standard variables, each with a fallback here for
 * hosts that send none; a host's values (set on the root element by the bridge) win over these. `light-dark()` picks
 * the light or dark value from `color-scheme`, which follows the host's theme (or the system's when none is sent).
 * No `url()` anywhere: the view loads nothing.
 */
export const VIEW_STYLE = String.raw`
:root {
  color-scheme: light dark;
  --color-background-primary: light-dark(#ffffff, #1c1c1e);
  --color-background-secondary: light-dark(#f4f4f5, #2a2a2d);
  --color-text-primary: light-dark(#18181b, #f4f4f5);
  --color-text-secondary: light-dark(#52525b, #a1a1aa);
  --color-text-success: light-dark(#166534, #86efac);
  --color-border-primary: light-dark(#d4d4d8, #3f3f46);
  --color-ring-primary: light-dark(#2563eb, #93c5fd);
  --font-sans: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --font-text-sm-size: 0.875rem;
  --font-text-md-size: 1rem;
  --font-heading-sm-size: 1.0625rem;
  --font-heading-md-size: 1.25rem;
  --border-radius-md: 6px;
}
:root[data-theme="light"] { color-scheme: light; }
:root[data-theme="dark"] { color-scheme: dark; }
html.fixed-height, html.fixed-height body { height: 100%; overflow: auto; }
body {
  margin: 0;
  padding: 12px 16px;
  background: var(--color-background-primary);
  color: var(--color-text-primary);
  font-family: var(--font-sans);
  font-size: var(--font-text-md-size);
  line-height: 1.45;
}
h1 { font-size: var(--font-heading-md-size); margin: 0 0 4px; }
h2, h3 { font-size: var(--font-heading-sm-size); margin: 16px 0 6px; }
p { margin: 4px 0; }
.muted, .meta, .progress-text { color: var(--color-text-secondary); font-size: var(--font-text-sm-size); }
table { border-collapse: collapse; width: 100%; margin-top: 8px; }
caption { text-align: left; color: var(--color-text-secondary); font-size: var(--font-text-sm-size); padding-bottom: 4px; }
th, td { text-align: left; vertical-align: top; padding: 8px 6px; border-bottom: 1px solid var(--color-border-primary); }
th { font-size: var(--font-text-sm-size); color: var(--color-text-secondary); font-weight: 600; }
.progress { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 8px; }
progress { width: 8rem; height: 0.6rem; accent-color: var(--color-ring-primary); }
button {
  font: inherit;
  color: var(--color-text-primary);
  background: var(--color-background-secondary);
  border: 1px solid var(--color-border-primary);
  border-radius: var(--border-radius-md);
  padding: 4px 10px;
  cursor: pointer;
}
button.course { background: none; border: none; padding: 0; text-align: left; text-decoration: underline; font-weight: 600; }
button:focus-visible, [tabindex="-1"]:focus-visible { outline: 2px solid var(--color-ring-primary); outline-offset: 2px; }
ol.lectures { list-style: none; margin: 0; padding: 0; }
ol.lectures li { display: flex; gap: 8px; padding: 6px 0; border-bottom: 1px solid var(--color-border-primary); }
.mark { width: 1.2em; flex: none; text-align: center; }
.completed .mark { color: var(--color-text-success); }
.locked { color: var(--color-text-secondary); }
.detail:empty { display: none; }
.detail { margin-top: 16px; padding-top: 4px; border-top: 2px solid var(--color-border-primary); }
`;
