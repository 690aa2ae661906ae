/**
 * The member API's full syllabus query (20 courses × 50 lectures with progress, about 100 KB of JSON) next to floor B,
 * the same answer built by hand on the product's own three statements (test/bench/floors/syllabus.ts).
 */
import { findUserByEmail } from '../../src/accounts/users.js';
import { variantProfile } from '../../src/variant.js';
import { importSiteDocument } from '../../src/import/import-site.js';
import { memberToken } from '../support/member-api.js';
import { BENCH_MEMBER_EMAIL, SYLLABUS_QUERY, syllabusDocument } from './syllabus-data.js';
import type { BenchContext, Comparison } from './harness.js';

export async function syllabusComparisons(context: BenchContext): Promise<Comparison[]> {
  await importSiteDocument(context.db, syllabusDocument(context.site.origin, new Date()));
  const user = await findUserByEmail(context.db, BENCH_MEMBER_EMAIL);
  if (!user) throw new Error('the bench member was not imported');
  const token = await memberToken(context.db, context.site, user, 'account:read');
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  return [
    {
      name: 'member GraphQL syllabus',
      floorName: 'B: the product\'s three statements, prepared',
      product: { url: `${context.productUrl}${variantProfile(context.variant).memberGraphql.path}`, method: 'POST', headers, body: JSON.stringify({ query: SYLLABUS_QUERY }) },
      floor: { url: `${context.floorUrl}/floor/syllabus`, method: 'POST', headers, body: JSON.stringify({ query: SYLLABUS_QUERY }) },
    },
  ];
}
