import { parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { UsageExport } from '../../usage/export-format.js';
import { parseVariantName } from '../../variant.js';
import type { ContractChange } from './changes.js';
import { schemaOf } from './schemas.js';
import type { ContractSources } from './sources.js';

/**
 * The trusted documents a usage export lists (the operations clients published for the site) checked against the
 * change: a document that validates against the base schema and no longer against the head schema of the site's
 * variant would be refused once the change is deployed, so that client's operation breaks. Each is one breaking row
 * naming the client, the operation and the validation errors. Its id (`graphql:TRUSTED_DOCUMENT_INVALIDATED:<client>:
 * <document id>`) is stable, so the allowlist can accept it explicitly. A document already invalid on the base is
 * not this change's doing and is left out.
 */

function errorsAgainst(schema: GraphQLSchema, document: DocumentNode): string[] {
  return validate(schema, document).map((error) => error.message);
}

export function trustedDocumentChanges(base: ContractSources, head: ContractSources, usage: UsageExport): ContractChange[] {
  const variant = parseVariantName(usage.variant);
  if (variant === null) return [];
  const before = schemaOf(base, variant);
  const after = schemaOf(head, variant);
  if (before === null || after === null) return [];
  const changes: ContractChange[] = [];
  for (const client of usage.trustedDocuments) {
    for (const published of client.documents) {
      let document: DocumentNode;
      try {
        document = parse(published.document);
      } catch {
        continue; // never valid on the base either: nothing this change did
      }
      if (errorsAgainst(before, document).length > 0) continue;
      const errors = errorsAgainst(after, document);
      if (errors.length === 0) continue;
      const operations = published.operationNames.length === 0 ? 'an anonymous operation' : published.operationNames.map((name) => `\`${name}\``).join(', ');
      const who = client.clientName === '' || client.clientName === client.clientId ? `\`${client.clientId}\`` : `${client.clientName} (\`${client.clientId}\`)`;
      changes.push({
        api: 'graphql',
        id: `graphql:TRUSTED_DOCUMENT_INVALIDATED:${client.clientId}:${published.id}`,
        severity: 'breaking',
        where: `${published.operationNames.join(', ') || published.id} (${client.clientId})`,
        message: `The trusted document ${operations} that ${who} published on ${usage.site} no longer validates: ${errors.join(' ')}`,
        variants: [variant],
        trustedDocument: { site: usage.site, clientId: client.clientId, clientName: client.clientName, documentId: published.id, operationNames: published.operationNames, errors },
      });
    }
  }
  return changes;
}
