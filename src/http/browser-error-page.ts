import { html, safeUrl } from './html.js';
import { layout } from './layout.js';

export interface BrowserError {
  status: number;
  /** What the person asked for, e.g. `GET /courses/intro`. */
  request: string;
  /** The school's name, when the request's origin is a school of this service. */
  siteName: string | null;
  requestId: string;
  /** The error's own description, shown for client errors; a server failure shows a generic sentence instead. */
  detail: string;
}

const HEADINGS: Readonly<Record<number, string>> = {
  404: 'Page not found',
  405: 'This page cannot be used this way',
  429: 'Too many requests',
  503: 'Temporarily unavailable',
};

/** The page a browser gets for an error outside the pages that have their own (404, 405, 500, …), with the request id. */
export function browserErrorPage(error: BrowserError): string {
  const heading = HEADINGS[error.status] ?? (error.status >= 500 ? 'Something went wrong' : 'This request cannot be completed');
  const detail =
    error.status === 404
      ? html`<p>There is no page at <code>${error.request}</code>${error.siteName ? html` on ${error.siteName}` : ''}.</p>`
      : error.status >= 500 && error.status !== 503
        ? html`<p>The server could not answer <code>${error.request}</code>. Try again in a moment.</p>`
        : html`<p>${error.detail}</p>`;
  return layout(
    `${heading}${error.siteName ? ` · ${error.siteName}` : ''}`,
    html`<h1>${heading}</h1>
${detail}
<p><a href="${safeUrl('/')}">${error.siteName ? html`${error.siteName} home` : 'Home'}</a></p>
<p><small>Error ${error.status} · request id <code>${error.requestId}</code> (quote it when you report this)</small></p>`,
  );
}
