import type { Command } from 'commander';
import fs from 'node:fs';
import { loadConfig } from '../../config/config.js';
import type { OAuthClient } from '../../clients/client.js';
import type { TrustedDocumentRecord } from '../../data/trusted-documents.js';
import { variantProfile } from '../../variant.js';
import { CliError, table, type CommandResult, type Runner } from '../command-kit.js';
import { withDatabase } from '../runtime.js';

/** The manifest file's bound, as the admin API bounds its request body (docs/trusted-documents.md, "Bounds"). */
const MAX_MANIFEST_BYTES = 6 * 1024 * 1024;

function documentJson(document: TrustedDocumentRecord) {
  return { id: document.documentId, operationNames: document.operationNames, publishedAt: document.publishedAt.toISOString() };
}

function clientLabel(client: OAuthClient): string {
  return `${client.clientId} (${client.name}, ${client.kind})`;
}

function documentTable(documents: readonly TrustedDocumentRecord[]): string {
  if (documents.length === 0) return '(no trusted documents)';
  return table([['ID', 'OPERATIONS', 'PUBLISHED'], ...documents.map((document) => [document.documentId, document.operationNames.join(', ') || '(anonymous)', document.publishedAt.toISOString()])]);
}

const plural = (count: number, noun: string) => `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;

/** The manifest file as JSON, refused before anything else when it is missing, too large or not JSON. */
function readManifestFile(file: string): unknown {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    throw new CliError(`cannot read the manifest ${file}: no such file`, 'manifest_unreadable');
  }
  if (size > MAX_MANIFEST_BYTES) throw new CliError(`the manifest ${file} has ${plural(size, 'byte')}; a manifest may have at most ${MAX_MANIFEST_BYTES / (1024 * 1024)} MB`, 'manifest_too_large');
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new CliError(`the manifest ${file} is not JSON: ${error instanceof Error ? error.message : String(error)}`, 'invalid_manifest');
  }
}

interface ClientOptions {
  site: string;
  client: string;
}

export function registerDocumentCommands(program: Command, run: Runner): void {
  const documents = program
    .command('documents')
    .description("publish, list and remove a client's trusted documents: the member API operations it may send by id (docs/trusted-documents.md)");

  documents
    .command('publish')
    .description("publish a manifest (graphql-codegen's persisted-documents.json: hash → document) as a client's trusted documents; refused whole when any document fails")
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .requiredOption('--client <clientId>', "the client's client_id")
    .option('--replace', "remove the client's documents that the manifest does not hold")
    .argument('<file>', 'the manifest file')
    .action(
      run(async (file: string, options: ClientOptions & { replace?: boolean }): Promise<CommandResult> => {
        const { variant } = loadConfig();
        const manifest = readManifestFile(file);
        const [{ requireSiteByOrigin }, { publishTrustedDocuments }] = await Promise.all([import('../../sites/sites.js'), import('../../graphql/trusted-documents/publish.js')]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const outcome = await publishTrustedDocuments(db, variantProfile(variant), site.id, options.client, manifest, { replace: options.replace });
          const lines = [
            `published ${plural(outcome.added.length, 'new document')} for ${clientLabel(outcome.client)} at ${site.origin}; ${plural(outcome.unchanged, 'document')} already published`,
            ...(options.replace ? [`removed ${plural(outcome.removed.length, 'document')} the manifest does not hold`] : []),
            `the client now holds ${plural(outcome.documents.length, 'trusted document')}`,
          ];
          return {
            text: lines.join('\n'),
            data: { site: site.origin, clientId: outcome.client.clientId, added: outcome.added, unchanged: outcome.unchanged, removed: outcome.removed, documents: outcome.documents.map(documentJson) },
          };
        });
      }),
    );

  documents
    .command('list')
    .description("list a client's trusted documents, oldest first")
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .requiredOption('--client <clientId>', "the client's client_id")
    .action(
      run(async (options: ClientOptions): Promise<CommandResult> => {
        const [{ requireSiteByOrigin }, { clientTrustedDocuments }] = await Promise.all([import('../../sites/sites.js'), import('../../graphql/trusted-documents/publish.js')]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const { client, documents: held } = await clientTrustedDocuments(db, site.id, options.client);
          return {
            text: `${clientLabel(client)} at ${site.origin}: ${plural(held.length, 'trusted document')}\n${documentTable(held)}`,
            data: { site: site.origin, clientId: client.clientId, documents: held.map(documentJson) },
          };
        });
      }),
    );

  documents
    .command('remove')
    .description("remove one of a client's trusted documents: the client can no longer send it")
    .requiredOption('--site <origin>', 'the site, named by its origin')
    .requiredOption('--client <clientId>', "the client's client_id")
    .argument('<documentId>', 'the document id (sha256:<hex>, or the bare hex digits)')
    .action(
      run(async (documentId: string, options: ClientOptions): Promise<CommandResult> => {
        const [{ requireSiteByOrigin }, { removeTrustedDocument }] = await Promise.all([import('../../sites/sites.js'), import('../../graphql/trusted-documents/publish.js')]);
        return withDatabase(async (db) => {
          const site = await requireSiteByOrigin(db, options.site);
          const removed = await removeTrustedDocument(db, site.id, options.client, documentId);
          return { text: `removed ${removed.documentId} from ${clientLabel(removed.client)} at ${site.origin}`, data: { site: site.origin, clientId: removed.client.clientId, removed: removed.documentId } };
        });
      }),
    );
}
