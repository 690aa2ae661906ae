/** One change between two versions of a contract, rated for the people who review it (docs/contract-workflow.md). */
export type Severity = 'breaking' | 'dangerous' | 'safe';

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
  /** Set when the allowlist accepts this breaking change. */
  allowedBecause?: string;
}

export const SEVERITY_ORDER: readonly Severity[] = ['breaking', 'dangerous', 'safe'];
