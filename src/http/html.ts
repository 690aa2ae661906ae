/**
 * Safe HTML by construction. Every server-rendered page is written with the `html` tagged template: each value put
 * into it is escaped, unless it is itself markup made by this module (an `Html` fragment). A page cannot show an
 * operator's text as markup by forgetting to escape it; the only ways to insert markup as is are `html` fragments
 * and the greppable `trustedHtml`.
 */

/** Known only to this module, so that nothing else can construct an `Html`. */
const FRAGMENT: unique symbol = Symbol('Html');

/** Markup that is safe to insert as is: made by `html`, `safeUrl` or `trustedHtml`, never from a plain string. */
export class Html {
  readonly #markup: string;

  constructor(token: typeof FRAGMENT, markup: string) {
    if (token !== FRAGMENT) throw new TypeError('Html fragments are made with html`…`');
    this.#markup = markup;
  }

  toString(): string {
    return this.#markup;
  }
}

/** What may be put into `html`: text and numbers (escaped), fragments (as is), lists of either; nothing for null, undefined, false. */
export type HtmlValue = Html | string | number | false | null | undefined | readonly HtmlValue[];

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/**
 * The bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069). A character reference
 * would not help (the browser decodes it to the same control), so each becomes U+FFFD: visible, and it cannot
 * reorder the page text around the value ("Trojan Source", CVE-2021-42574). The marks U+200E/U+200F are kept.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** Text for element content and quoted attribute values alike (the templates quote every attribute). */
function escapeText(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => ENTITIES[char] ?? char).replace(BIDI_CONTROLS, '\uFFFD');
}

function append(out: string[], value: HtmlValue): void {
  if (value === null || value === undefined || value === false) return;
  if (value instanceof Html) out.push(value.toString());
  else if (typeof value === 'string' || typeof value === 'number') out.push(escapeText(String(value)));
  else for (const item of value) append(out, item);
}

/** html`<p>${text}</p>`: the literal parts as written, every value escaped unless it is an `Html` fragment. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  const out: string[] = [strings[0] ?? ''];
  values.forEach((value, index) => {
    append(out, value);
    out.push(strings[index + 1] ?? '');
  });
  return new Html(FRAGMENT, out.join(''));
}

/** The items with `separator` between them, each escaped like a value of `html`. */
export function joinHtml(items: readonly HtmlValue[], separator: HtmlValue): Html {
  return html`${items.flatMap((item, index) => (index === 0 ? [item] : [separator, item]))}`;
}

/**
 * Markup inserted exactly as given, for the rare markup that was rendered elsewhere. Every call must say in a comment
 * why the string cannot carry anyone's text unescaped.
 */
export function trustedHtml(markup: string): Html {
  return new Html(FRAGMENT, markup);
}

const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);

/** The URL as a browser reads its scheme: C0 controls and spaces trimmed at both ends, tabs and newlines removed (WHATWG URL). */
function schemeOf(url: string): string | null {
  let start = 0;
  let end = url.length;
  while (start < end && url.charCodeAt(start) <= 0x20) start += 1;
  while (end > start && url.charCodeAt(end - 1) <= 0x20) end -= 1;
  const compact = url.slice(start, end).replace(/[\t\n\r]/g, '');
  return /^([a-z][a-z0-9+.-]*):/i.exec(compact)?.[1]?.toLowerCase() ?? null;
}

/**
 * A URL for an href, src or action attribute: relative URLs and http:, https: and mailto: ones, escaped; any other
 * scheme (javascript:, data:, vbscript:, …, in any case and with leading spaces or controls) becomes `#`.
 */
export function safeUrl(url: string): Html {
  const scheme = schemeOf(url);
  return scheme === null || SAFE_SCHEMES.has(scheme) ? html`${url}` : html`#`;
}
