import { OAUTH_PATHS } from '../endpoints.js';

/** The end_session endpoint (OIDC RP-Initiated Logout 1.0 2) and the target of its confirmation form. */
export const LOGOUT_PATHS = {
  endSession: OAUTH_PATHS.endSession,
  confirm: `${OAUTH_PATHS.endSession}/confirm`,
} as const;
