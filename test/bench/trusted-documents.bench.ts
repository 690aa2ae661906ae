/**
 * npm run bench, trusted documents: a registered document sent by id (`documentId`) next to the same document sent in
 * full, both to the product's member GraphQL API in the same run (the "floor" here is the product itself with the
 * text). A request by id skips the parse and the validation (its document is cached per site, client and id), so it
 * must be at least as fast: a ratio of 1.00 or more. Two documents: the full syllabus (a large answer, where the
 * execution dominates) and the viewer's identity (a small answer, where the request's own work shows). Its own member
 * and prefix, so it seeds the same school as the other bench modules.
 */
import { createHash } from 'node:crypto';
import { findUserByEmail } from '../../src/accounts/users.js';
import { insertTrustedDocuments } from '../../src/data/trusted-documents.js';
import { importSiteDocument } from '../../src/import/import-site.js';
import { variantProfile } from '../../src/variant.js';
import { memberToken } from '../support/member-api.js';
import type { BenchContext, Comparison } from './harness.js';
import { SYLLABUS_QUERY, syllabusDocument, type BenchMember } from './syllabus-data.js';

const TRUSTED_MEMBER: BenchMember = { prefix: 'trusted-bench-', email: 'trusted.bench.member@example.com', name: 'Trusted Bench Member' };

const DOCUMENTS = [
  { name: 'syllabus', query: SYLLABUS_QUERY },
  { name: 'viewer', query: '{ viewer { id name email avatarUrl } }' },
];

export async function trustedDocumentComparisons(context: BenchContext): Promise<Comparison[]> {
  await importSiteDocument(context.db, syllabusDocument(context.site.origin, new Date(), TRUSTED_MEMBER));
  const user = await findUserByEmail(context.db, TRUSTED_MEMBER.email);
  if (!user) throw new Error('the trusted documents bench member was not imported');
  const token = await memberToken(context.db, context.site, user, 'account:read');
  // memberToken makes a new client for the token: the site's newest.
  const client = (await context.db('oauth_clients').where({ site_id: context.site.id }).orderBy('id', 'desc').first('id')) as { id: number };
  const ids = DOCUMENTS.map(({ query }) => `sha256:${createHash('sha256').update(query, 'utf8').digest('hex')}`);
  await insertTrustedDocuments(
    context.db,
    context.site.id,
    client.id,
    DOCUMENTS.map(({ query }, index) => ({ documentId: ids[index] ?? '', document: query, operationNames: [] })),
    new Date(),
  );
  const url = `${context.productUrl}${variantProfile(context.variant).memberGraphql.path}`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  return DOCUMENTS.map(({ name, query }, index) => ({
    name: `member GraphQL ${name} by documentId`,
    floorName: 'the same document sent in full',
    product: { url, method: 'POST', headers, body: JSON.stringify({ documentId: ids[index] }) },
    floor: { url, method: 'POST', headers, body: JSON.stringify({ query }) },
  }));
}
