/** The member's connected-apps page at a site and its form targets (docs/connected-apps.md). */
export const CONNECTED_APPS_PATHS = {
  list: '/connected-apps',
  signIn: '/connected-apps/sign-in',
  disconnect: '/connected-apps/disconnect',
} as const;
