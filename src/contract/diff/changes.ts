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
   * `openapi:<action>:<JSON pointer into the document>`.
   */
  id: string;
  severity: Severity;
  /** Where, in the terms of the API: `Viewer.payments`, `GET /school`. */
  where: string;
  message: string;
  /** GraphQL only: the schema variants the change appears in. */
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
}

export const SEVERITY_ORDER: readonly Severity[] = ['breaking', 'dangerous', 'deprecated', 'safe'];
