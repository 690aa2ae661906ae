/**
 * The usage export (docs/usage.md): what `npx schoolgate usage export` writes and `GET /usage/export` answers, and
 * what `npm run contract:diff -- --usage FILE|URL` reads. One site, a window of whole UTC days, every element that a
 * client used in it with the clients and their counts, and the trusted documents each client has published.
 * Plain JSON with no database types, so the contract tools read it without a server.
 */

/** The value of `format`; a reader refuses any other. */
export const USAGE_EXPORT_FORMAT = 'schoolgate-usage-export/1';

/**
 * `graphql`: a member API schema coordinate: `Type.field`, `Type.field(argument:)`, `InputType.field`, `Enum.VALUE`.
 * `admin`: an admin API operationId (`listCourses`). `mcp`: an MCP tool name (`list_courses`).
 */
export type UsageApi = 'graphql' | 'admin' | 'mcp';

export const USAGE_APIS: readonly UsageApi[] = ['graphql', 'admin', 'mcp'];

export interface ClientUse {
  /** The OAuth client_id; null for anonymous calls (public MCP tools). */
  clientId: string | null;
  clientName: string | null;
  uses: number;
  /** ISO 8601, UTC. */
  lastUsedAt: string;
}

export interface ElementUse {
  api: UsageApi;
  element: string;
  /** Most uses first. */
  clients: ClientUse[];
}

export interface ExportedTrustedDocument {
  /** `sha256:<64 hex digits>` (or `sha1:<40 hex digits>`): the hash of `document`, as the client sends it in `documentId`. */
  id: string;
  /** The operation names the document defines (one, usually). */
  operationNames: string[];
  document: string;
  publishedAt: string;
}

export interface ClientDocuments {
  clientId: string;
  clientName: string;
  /** The client's kind: `vendor_platform`, `metadata_document`, `operator_created`. */
  kind: string;
  documents: ExportedTrustedDocument[];
}

export interface UsageExport {
  format: typeof USAGE_EXPORT_FORMAT;
  /** The site's origin (`https://school.example`). */
  site: string;
  /** The member API variant the site runs (`A` or `B`): the schema its coordinates belong to. */
  variant: string;
  generatedAt: string;
  /** The first and the last UTC day counted (YYYY-MM-DD), both included; `days` days in all. */
  from: string;
  to: string;
  days: number;
  usage: ElementUse[];
  trustedDocuments: ClientDocuments[];
}
