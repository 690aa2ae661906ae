/**
 * One change between two versions of a contract, rated for the people who review it (docs/contract-workflow.md).
 * `deprecated` is a rating of its own: nothing breaks yet, but clients have until the sunset date to move.
 */
export type Severity = 'breaking' | 'dangerous' | 'deprecated' | 'safe';

export interface ContractChange {
  api: 'graphql' | 'openapi';
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
  /** Only descriptions or annotations changed: nothing a client's code sees (the changelog leaves these out). */
  documentationOnly?: boolean;
}

export const SEVERITY_ORDER: readonly Severity[] = ['breaking', 'dangerous', 'deprecated', 'safe'];
