/** The spec's Scopes table, in its order. */
export const SCOPE_DESCRIPTIONS = {
  openid: 'OpenID Connect authentication',
  profile: 'Basic profile information',
  email: 'Email address',
  'courses:read': 'Read access to courses',
  'courses:write': 'Write access to courses',
  'students:read': 'Read access to students',
  'students:write': 'Write access to students',
  'members:read': 'Read access to members',
  'members:write': 'Write access to members',
  'analytics:read': 'Read access to analytics',
  'curriculum:read': 'Read access to curriculum',
  'curriculum:write': 'Write access to curriculum',
  'orders:read': 'Read access to orders',
  'school:read': 'Read access to school',
  'school:write': 'Write access to school',
  'appearance:read': 'Read access to appearance',
  'appearance:write': 'Write access to appearance',
  'events:read': 'Read access to events',
  'events:write': 'Write access to events',
  'membership_plans:read': 'Read access to membership plans',
  'membership_plans:write': 'Write access to membership plans',
  'coupons:read': 'Read access to coupons',
  'coupons:write': 'Write access to coupons',
  'posts:read': 'Read access to posts',
  'posts:write': 'Write access to posts',
  'subscriptions:read': 'Read access to subscriptions',
  'subscriptions:write': 'Write access to subscriptions',
  'digital_products:read': 'Read access to digital products',
  'digital_products:write': 'Write access to digital products',
  'comments:read': 'Read access to comments',
  'lecturers:read': 'Read access to lecturers',
  'lecturers:write': 'Write access to lecturers',
  'storage:write': 'Write access to storage',
  'forms:read': 'Read access to forms',
  'pages:read': 'Read access to pages',
  'pages:write': 'Write access to pages',
  'account:read': "Read access to the member's account data",
  'account:write': "Write access to the member's account data",
} as const;

export type Scope = keyof typeof SCOPE_DESCRIPTIONS;
export type Audience = 'member' | 'operator';

export const ALL_SCOPES = Object.keys(SCOPE_DESCRIPTIONS) as Scope[];
export const IDENTITY_SCOPES: readonly Scope[] = ['openid', 'profile', 'email'];
/** Reserved to the member audience; an operator client asking for them gets invalid_scope (Authentication 6). */
export const MEMBER_ONLY_SCOPES: readonly Scope[] = ['account:read', 'account:write'];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPE_DESCRIPTIONS, value);
}

/** The scopes a client of this audience may hold. */
export function scopesForAudience(audience: Audience): Scope[] {
  return audience === 'member'
    ? [...IDENTITY_SCOPES, ...MEMBER_ONLY_SCOPES]
    : ALL_SCOPES.filter((scope) => !MEMBER_ONLY_SCOPES.includes(scope));
}

/** Read and identity scopes: all an unreviewed metadata-document client may request (Authentication 5). */
export function isReadOrIdentityScope(scope: Scope): boolean {
  return IDENTITY_SCOPES.includes(scope) || scope.endsWith(':read');
}

export function parseScopeString(value: string): string[] {
  return value.split(' ').filter((part) => part !== '');
}
