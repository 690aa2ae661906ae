import type { components } from '../../generated/admin-api.js';

/**
 * The usage export (docs/usage.md): what `npx schoolgate usage export` writes and `GET /usage/export` answers, and
 * what `npm run contract:diff -- --usage FILE|URL` reads. One site, a window of whole UTC days, every element that a
 * client used in it with the clients and their counts, and the trusted documents each client has published.
 * The admin API contract (openapi/components/schemas/usage.yaml) defines it; these are its generated types, so the
 * CLI's file, the admin API's answer and the contract tools' reader cannot drift apart.
 */
type Schemas = components['schemas'];

/** The value of `format`; a reader refuses any other. */
export const USAGE_EXPORT_FORMAT: UsageExport['format'] = 'schoolgate-usage-export/1';

/**
 * `graphql`: a member API schema coordinate: `Type.field`, `Type.field(argument:)`, `InputType.field`, `Enum.VALUE`.
 * `admin`: an admin API operationId (`listCourses`). `mcp`: an MCP tool name (`list_courses`).
 */
export type UsageApi = Schemas['UsageApi'];

export const USAGE_APIS: readonly UsageApi[] = ['graphql', 'admin', 'mcp'];

/** One client's uses of an element; `clientId` null for anonymous calls (public MCP tools). */
export type ClientUse = Schemas['UsageClient'];
export type ElementUse = Schemas['ExportedElementUse'];
export type ExportedTrustedDocument = Schemas['ExportedTrustedDocument'];
export type ClientDocuments = Schemas['ClientTrustedDocuments'];
export type UsageExport = Schemas['UsageExport'];
