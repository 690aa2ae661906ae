import type { Site } from '../../../sites/sites.js';
import { AUTHORIZE_PATHS } from '../paths.js';
import { authorizePage, escapeHtml, hiddenField } from './page.js';

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
  const hidden = hiddenField('handle', input.handle) + hiddenField('csrf_token', input.csrfToken);
  return authorizePage(
    input.site,
    'sign-in',
    'Sign in',
    `<h1>Sign in to ${escapeHtml(input.site.name)}</h1>
<p>to continue to <strong>${escapeHtml(input.clientName)}</strong>.</p>
${input.notice ? `<p class="notice" role="status">${escapeHtml(input.notice)}</p>` : ''}
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="${AUTHORIZE_PATHS.signIn}">
${hidden}
<label for="email">Email</label>
<input type="email" id="email" name="email" autocomplete="username" required autofocus value="${escapeHtml(input.email ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<form method="post" action="${AUTHORIZE_PATHS.cancel}" class="actions">
${hidden}
<button type="submit" class="secondary">Cancel and return to ${escapeHtml(input.clientName)}</button>
</form>`,
  );
}
