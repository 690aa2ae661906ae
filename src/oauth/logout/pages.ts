import { html } from '../../http/html.js';
import type { Site } from '../../sites/sites.js';
import { authorizePage, hiddenField } from '../authorize/pages/page.js';
import { LOGOUT_PATHS } from './paths.js';

export interface SignOutConfirmationInput {
  site: Site;
  /** The signed-in member, as the sign-in page knows them. */
  email: string;
  /** The application that sent the member here, once verified; null when it is unknown. */
  clientName: string | null;
  csrfToken: string;
  /** The verified request, carried to the confirmation post. */
  clientId: string | null;
  postLogoutRedirectUri: string | null;
  state: string | null;
}

/** OIDC RP-Initiated Logout 1.0 2: "the OP SHOULD ask the End-User whether to log out" when it cannot tell who asked. */
export function signOutConfirmationPage(input: SignOutConfirmationInput): string {
  const { site } = input;
  return authorizePage(
    site,
    'sign-out',
    'Sign out',
    html`<h1>Sign out of ${site.name}?</h1>
${input.clientName === null ? html`<p>An application asked to sign you out.</p>` : html`<p><strong>${input.clientName}</strong> asked to sign you out.</p>`}
<p class="account">You are signed in as <strong>${input.email}</strong>.</p>
<form method="post" action="${LOGOUT_PATHS.confirm}">
${hiddenField('csrf_token', input.csrfToken)}
${input.clientId === null ? '' : hiddenField('client_id', input.clientId)}
${input.postLogoutRedirectUri === null ? '' : hiddenField('post_logout_redirect_uri', input.postLogoutRedirectUri)}
${input.state === null ? '' : hiddenField('state', input.state)}
<div class="actions"><button type="submit">Sign out</button></div>
</form>
<p class="fine">If you did not ask to sign out, close this page: you stay signed in.</p>`,
  );
}

/** The end of a sign-out, or a visit without a session; nothing links back to an unverified application. */
export function signedOutPage(site: Site, clientName: string | null): string {
  return authorizePage(
    site,
    'signed-out',
    'Signed out',
    html`<h1>You are signed out of ${site.name}</h1>
${clientName === null ? '' : html`<p>You can return to <strong>${clientName}</strong> and close this page.</p>`}
<p class="fine">Applications you approved keep their access until you disconnect them.</p>`,
  );
}
