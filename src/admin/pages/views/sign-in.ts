import { html } from '../../../http/html.js';
import { ADMIN_PATHS } from '../paths.js';
import { adminPage, hiddenField, notices, type AdminChrome } from './layout.js';
import { signInFields } from '../../../pages/sign-in-fields.js';

export interface AdminSignInInput {
  chrome: AdminChrome;
  csrfToken: string;
  returnTo: string;
  email?: string | null;
  error?: string | null;
  notice?: string | null;
}

/** Sign-in with an operator account (owner, operator or staff of this site); the same session as the authorize pages. */
export function adminSignInPage(input: AdminSignInInput): string {
  const { site } = input.chrome;
  return adminPage(
    input.chrome,
    'admin-sign-in',
    'Sign in',
    html`<h1>Sign in to the admin area of ${site.name}</h1>
<p>For the school's owners, operators and staff.</p>
${notices({ error: input.error ?? null, notice: input.notice ?? null })}
<form method="post" action="${ADMIN_PATHS.signIn}">
${hiddenField('csrf_token', input.csrfToken)}${hiddenField('return_to', input.returnTo)}
${signInFields(input.email)}
</form>`,
  );
}
