/**
 * The deployment variant as one profile of named capabilities (the way node-oidc-provider reads every optional
 * behaviour from one `features` object). The spec names two deployments, A and B; this is the only file that knows
 * which letter means what: everything else reads a capability from `Services.variant`.
 */

/** The deployment variants named by the spec: A serves /member/graphql, B serves /account/graphql. */
export type Variant = 'A' | 'B';

export const VARIANT_NAMES: readonly Variant[] = ['A', 'B'];

/** Member data beyond the shared schema: each adds member GraphQL fields and the MCP tools, resources and prompts over them. */
export type MemberFeature = 'consultingMeetings' | 'payments' | 'notificationInbox';

export interface VariantProfile {
  /** The deployment's name, for logs, pages and reports. */
  readonly name: Variant;
  readonly memberGraphql: {
    /** Where the member GraphQL API is served (spec: Endpoints). */
    readonly path: string;
    /** Folders of hand-written SDL, relative to the project root, loaded in this order. */
    readonly schemaFolders: readonly string[];
    /** Folders of the example operations that run on this schema (typed client for frontend teams). */
    readonly operationFolders: readonly string[];
    /**
     * Where a missing account scope is refused (spec: Errors): `per-field` (a token needs one of the two account
     * scopes; a field needing the other is a GraphQL error entry with HTTP 200) or `before-execution` (HTTP 403
     * insufficient_scope for any requested field the token's scopes do not cover).
     */
    readonly scopeGate: 'per-field' | 'before-execution';
  };
  /** Whether the RFC 7662 introspection endpoint is served and advertised. */
  readonly introspection: boolean;
  /** Whether `picture` is an id_token and userinfo claim of the profile scope. */
  readonly pictureClaim: boolean;
  /**
   * Whether member tokens carry the school they were issued for (`school_id`, `school_subdomain`, `created_at` in
   * the token response) and the member API and /mcp refuse a member token without this site's school.
   */
  readonly schoolBoundMemberTokens: boolean;
  /** How /mcp treats a valid token with no resource owner: refuse it (401 invalid_token) or serve the public tools. */
  readonly mcpUnboundToken: 'refuse' | 'public-tools';
  /** The member features this deployment has beyond the shared schema. */
  readonly memberFeatures: ReadonlySet<MemberFeature>;
}

const PROFILES: Readonly<Record<Variant, VariantProfile>> = {
  A: {
    name: 'A',
    memberGraphql: {
      path: '/member/graphql',
      schemaFolders: ['schema', 'schema/variant-a'],
      operationFolders: ['schema/operations', 'schema/operations/variant-a'],
      scopeGate: 'per-field',
    },
    introspection: false,
    pictureClaim: true,
    schoolBoundMemberTokens: true,
    mcpUnboundToken: 'refuse',
    memberFeatures: new Set<MemberFeature>(['consultingMeetings', 'payments', 'notificationInbox']),
  },
  B: {
    name: 'B',
    memberGraphql: {
      path: '/account/graphql',
      schemaFolders: ['schema'],
      operationFolders: ['schema/operations'],
      scopeGate: 'before-execution',
    },
    introspection: true,
    pictureClaim: false,
    schoolBoundMemberTokens: false,
    mcpUnboundToken: 'public-tools',
    memberFeatures: new Set<MemberFeature>(),
  },
};

/** The profile of a variant. */
export function variantProfile(variant: Variant): VariantProfile {
  return PROFILES[variant];
}

/** Every profile, in name order (for tools that check both contracts, such as the contract diff). */
export const VARIANT_PROFILES: readonly VariantProfile[] = VARIANT_NAMES.map(variantProfile);

/** Parses SCHOOLGATE_VARIANT (default A); null for anything else. */
export function parseVariantName(raw: string | undefined): Variant | null {
  const value = (raw ?? 'A').trim().toUpperCase() || 'A';
  return VARIANT_NAMES.find((name) => name === value) ?? null;
}

/**
 * Whether an MCP tool, resource or prompt exists in a deployment: one that declares the member features it reads
 * exists only where the deployment has them all.
 */
export function hasMemberFeatures(profile: VariantProfile, item: { needs?: readonly MemberFeature[] }): boolean {
  return (item.needs ?? []).every((feature) => profile.memberFeatures.has(feature));
}
