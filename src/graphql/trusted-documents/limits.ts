/**
 * Bounds of a trusted-documents manifest (docs/trusted-documents.md, "Bounds"). A manifest past any of them is
 * refused whole: a client's operations are a few dozen to a few hundred documents of a few KB, so these leave room
 * for large apps while keeping one publish a bounded amount of parsing and validation work.
 */
export const TRUSTED_DOCUMENT_LIMITS = {
  /** Documents in one manifest. */
  maxDocuments: 2000,
  /** UTF-8 bytes of one document's text. */
  maxDocumentBytes: 100 * 1024,
  /** UTF-8 bytes of all the documents' texts together. */
  maxTotalBytes: 5 * 1024 * 1024,
  /**
   * The manifest as JSON text (the CLI's file, the admin API's request body): the documents' texts, their hashes and
   * JSON's escapes. Larger bodies are not read at all.
   */
  maxManifestBytes: 6 * 1024 * 1024,
} as const;
