import { html, type Html } from '../http/html.js';

/** The email and password fields and submit button of every sign-in form (authorization, connected apps, admin area). */
export function signInFields(email: string | null | undefined): Html {
  return html`<label for="email">Email</label>
<input type="email" id="email" name="email" autocomplete="username" required autofocus value="${email ?? ''}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>`;
}
