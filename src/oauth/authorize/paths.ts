import { OAUTH_PATHS } from '../endpoints.js';

/** The authorization endpoint (spec: Endpoints) and the form targets of its pages. */
export const AUTHORIZE_PATHS = {
  authorize: OAUTH_PATHS.authorize,
  signIn: `${OAUTH_PATHS.authorize}/sign-in`,
  consent: `${OAUTH_PATHS.authorize}/consent`,
  switchAccount: `${OAUTH_PATHS.authorize}/switch-account`,
  cancel: `${OAUTH_PATHS.authorize}/cancel`,
} as const;
