import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generate } from '@graphql-codegen/cli';
import type { Variant } from '../../src/config/config.js';
import { variantProfile } from '../../src/variant.js';

/** What graphql-codegen's client preset writes for a set of operations with `persistedDocuments`. */
export interface PresetOutput {
  /** persisted-documents.json: hash → the document text the hash is of. */
  manifest: Record<string, string>;
  /** The hash the client preset embeds in each operation's document node (`__meta__.hash`), by operation name: what its clients send as `documentId`. */
  hashOf: Record<string, string>;
}

/**
 * Runs graphql-codegen's client preset with `persistedDocuments` over `operations` (GraphQL text) against the
 * variant's member schema, in a scratch folder, and reads back the manifest and the generated document nodes.
 */
export async function clientPresetOutput(variant: Variant, operations: string, hashAlgorithm: 'sha1' | 'sha256' = 'sha1'): Promise<PresetOutput> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-preset-'));
  try {
    fs.writeFileSync(path.join(dir, 'operations.graphql'), operations);
    const schema = variantProfile(variant).memberGraphql.schemaFolders.map((folder) => `${folder}/*.graphql`);
    await generate(
      { schema, documents: [path.join(dir, 'operations.graphql')], generates: { [`${dir}/out/`]: { preset: 'client', presetConfig: { persistedDocuments: { hashAlgorithm }, fragmentMasking: false } } }, silent: true },
      true,
    );
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'out', 'persisted-documents.json'), 'utf8')) as Record<string, string>;
    const generated = (await import(pathToFileURL(path.join(dir, 'out', 'graphql.ts')).href)) as Record<string, unknown>;
    const hashOf: Record<string, string> = {};
    for (const [name, value] of Object.entries(generated)) {
      const hash = (value as { __meta__?: { hash?: unknown } } | null)?.__meta__?.hash;
      if (name.endsWith('Document') && typeof hash === 'string') hashOf[name.slice(0, -'Document'.length)] = hash;
    }
    return { manifest, hashOf };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
