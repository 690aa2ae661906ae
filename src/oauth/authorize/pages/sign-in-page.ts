import { html } from '../../../http/html.js';
import type { Site } from '../../../sites/sites.js';
import { AUTHORIZE_PATHS } from '../paths.js';
import { authorizePage, hiddenField } from './page.js';
import { signInFields } from '../../../pages/sign-in-fields.js';

export interface SignInPageInput {
  site: Site;
  clientName: string;
  handle: string;
  csrfToken: string;
  email?: string | null;
  /** The generic failure message; never says whether the account exists. */
  error?: string | null;
  /** Why the current session cannot continue (e.g. signed in as someone without the needed role). */
  notice?: string | null;
}

/** The sign-in page: email and password, posted to /oauth/authorize/sign-in; Cancel returns access_denied to the app. */
export function signInPage(input: SignInPageInput): string {
  const hidden = html`${hiddenField('handle', input.handle)}${hiddenField('csrf_token', input.csrfToken)}`;
  return authorizePage(
    input.site,
    'sign-in',
    'Sign in',
    html`<h1>Sign in to ${input.site.name}</h1>
<p>to continue to <strong>${input.clientName}</strong>.</p>
${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : ''}
${input.error ? html`<p class="error" role="alert">${input.error}</p>` : ''}
<form method="post" action="${AUTHORIZE_PATHS.signIn}">
${hidden}
${signInFields(input.email)}
</form>
<form method="post" action="${AUTHORIZE_PATHS.cancel}" class="actions">
${hidden}
<button type="submit" class="secondary">Cancel and return to ${input.clientName}</button>
</form>`,
  );
}
