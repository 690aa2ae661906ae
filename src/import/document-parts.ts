import type { ImportDocument } from './document.js';

/**
 * The lists of an import document that are read, validated and written record by record, in chunks: the ones that grow
 * with the school (a user and an enrollment per member). Every other section is small and read whole.
 */
export const STREAMED_SECTIONS = ['users', 'enrollments'] as const;
export type StreamedSection = (typeof STREAMED_SECTIONS)[number];

export function isStreamedSection(name: string): name is StreamedSection {
  return (STREAMED_SECTIONS as readonly string[]).includes(name);
}

/**
 * A piece of an import document, in document order: a record of a streamed list, or a member of the top-level object
 * (for a streamed list that is an array, `[]`, after its records).
 */
export type DocumentPart = { kind: 'record'; section: StreamedSection; index: number; value: unknown } | { kind: 'member'; name: string; value: unknown };

/** Where an import reads its document from; every pass reads it again from the start. */
export interface ImportSource {
  /** The document's parts; with `only`, just the records of that list (what a write pass needs). */
  parts(only?: StreamedSection): AsyncIterable<DocumentPart> | Iterable<DocumentPart>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parts of a document already in memory (the demo school, tests, callers that built one). */
export function* objectParts(document: Record<string, unknown>, only?: StreamedSection): Generator<DocumentPart> {
  for (const [name, value] of Object.entries(document)) {
    const streamed = isStreamedSection(name) && Array.isArray(value);
    if (only !== undefined && name !== only) continue;
    if (streamed) for (const [index, record] of (value as unknown[]).entries()) yield { kind: 'record', section: name, index, value: record };
    if (only === undefined) yield { kind: 'member', name, value: streamed ? [] : value };
  }
}

export function objectSource(document: Record<string, unknown>): ImportSource {
  return { parts: (only) => objectParts(document, only) };
}

export { isObject as isDocumentObject };

/** The document without its streamed lists' records: what the small sections are written from. */
export type DocumentHead = ImportDocument;
