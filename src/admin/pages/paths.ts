/** The admin area's pages and form targets (docs/admin-area.md). */
export const ADMIN_PATHS = {
  home: '/admin',
  signIn: '/admin/sign-in',
  signOut: '/admin/sign-out',
  settings: '/admin/settings',
  applications: '/admin/developers/oauth-applications',
  newApplication: '/admin/developers/oauth-applications/new',
  memberConnectedApps: '/admin/developers/connected-apps',
  usage: '/admin/api-usage',
} as const;

/** The page of one application; its client_id (possibly a URL) is one percent-encoded path segment. */
export function applicationPath(clientId: string, action?: 'delete' | 'rotate-secret' | 'review' | 'settings' | 'revoke-tokens'): string {
  return `${ADMIN_PATHS.applications}/${encodeURIComponent(clientId)}${action === undefined ? '' : `/${action}`}`;
}

/** An application's connected members, or the form that revokes one member's grant. */
export function applicationGrantsPath(clientId: string, revokeGrantId?: string): string {
  return `${applicationPath(clientId)}/grants${revokeGrantId === undefined ? '' : `/${encodeURIComponent(revokeGrantId)}/revoke`}`;
}

/** A member's connected apps (by user id), or the form that revokes one of the member's grants. */
export function memberGrantsPath(userId: number, revokeGrantId?: string): string {
  return `${ADMIN_PATHS.memberConnectedApps}/${userId}${revokeGrantId === undefined ? '' : `/grants/${encodeURIComponent(revokeGrantId)}/revoke`}`;
}

/** Where to go after signing in: an admin path of this site, nothing else (no open redirect). */
export function safeReturnPath(value: string | undefined): string {
  if (value === undefined) return ADMIN_PATHS.home;
  if (!/^\/admin(?:[/?][^\s\\]*)?$/.test(value) || value.startsWith('//')) return ADMIN_PATHS.home;
  return value;
}
