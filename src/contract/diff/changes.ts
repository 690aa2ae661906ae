/**
 * One change between two versions of a contract, rated for the people who review it (docs/contract-workflow.md).
 * `deprecated` is a rating of its own: nothing breaks yet, but clients have until the sunset date to move.
 */
export type Severity = 'breaking' | 'dangerous' | 'deprecated' | 'safe';

/**
 * The element a change touches, named as the usage counts name it (docs/usage.md): `graphql` a schema coordinate
 * (`Course.slug`, `Query.course(id:)`, or a type name `Course` for a change to the whole type: any `Course.*`),
 * `admin` an admin API operationId, `mcp` an MCP tool name. Whether a client still uses it decides whether a breaking
 * change hurts anyone.
 */
export interface UsedElement {
  api: 'graphql' | 'admin' | 'mcp';
  name: string;
}

export interface ContractChange {
  api: 'graphql' | 'openapi' | 'mcp';
  /**
   * Stable identifier of the change, the key of the allowlist: `graphql:<KIND>:<schema coordinate>` or
   * `openapi:<action>:<JSON pointer into the document>` or `mcp:<KIND>:<tool>[.input|.output.<property path>]`.
   */
  id: string;
  severity: Severity;
  /** Where, in the terms of the API: `Viewer.payments`, `GET /school`. */
  where: string;
  message: string;
  /** GraphQL and MCP: the deployment variants the change appears in. */
  variants?: string[];
  /** Set when this breaking change is accepted: by the allowlist, or because the element's sunset date has passed. */
  allowedBecause?: string;
  /** A deprecation, or the removal of a deprecated element: its sunset date and replacement (docs/versioning.md). */
  sunset?: string;
  replacement?: string;
  /** The elements whose use decides whether the change breaks a client; none when no call can reach it. */
  elements?: UsedElement[];
  /** Only descriptions or annotations changed: nothing a client's code sees (the changelog leaves these out). */
  documentationOnly?: boolean;
  /** With `--usage`: who used the change's elements in the judged days (usage.ts). */
  usage?: ChangeUsage;
  /** With `--usage`: the published trusted document this change invalidates (trusted-documents.ts). */
  trustedDocument?: InvalidatedDocument;
}

/** One client's calls of a change's elements within the judged days, from a usage export. */
export interface ChangeClientUse {
  /** The OAuth client_id; null for anonymous calls (public MCP tools). */
  clientId: string | null;
  clientName: string | null;
  /** Calls counted in the export's window (src/usage/export-format.ts), summed over the change's elements. */
  uses: number;
  /** ISO 8601, UTC. */
  lastUsedAt: string;
  /** The elements this client used (`Course.slug`, `listCourses`, `list_courses`). */
  elements: string[];
}

/**
 * The verdict of usage on a change: `used` when a client called one of its elements within the last `days` days of
 * the export, `unused` when none did. A used breaking change fails even past its sunset (`overruled` keeps the reason
 * it lost); an unused one is allowed with a note.
 */
export interface ChangeUsage {
  verdict: 'used' | 'unused';
  site: string;
  days: number;
  /** Most uses first. */
  clients: ChangeClientUse[];
  overruled?: string;
}

export interface InvalidatedDocument {
  site: string;
  clientId: string;
  clientName: string;
  documentId: string;
  operationNames: string[];
  /** The validation errors of the document against the new schema. */
  errors: string[];
}

export const SEVERITY_ORDER: readonly Severity[] = ['breaking', 'dangerous', 'deprecated', 'safe'];
