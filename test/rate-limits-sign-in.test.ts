import { expect } from 'chai';
import type { User } from '../src/accounts/users.js';
import { SIGN_IN_LIMITS, signInBuckets, signInWithPassword } from '../src/accounts/sign-in.js';
import { currentHits } from '../src/db/rate-limit.js';
import { createSite, type Site } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser, PASSWORD } from './support/oauth-fixtures.js';
import { startOfRoomyWindow } from './support/rate-windows.js';

/** The school's one public address, as every sign-in below comes from it. */
const SCHOOL = '198.51.100.7';

/**
 * Sign-in limits (src/accounts/sign-in.ts) with a whole school behind one address: one person hammering one account
 * does not use up the address's allowance, and a typo followed by the right password costs the address nothing.
 * The address limit still stops failures spread over many accounts.
 */
describeEachDatabase('sign-in limits behind one school address', (scratch) => {
  const db = () => scratch().db;
  let site: Site;
  let hammered: User;
  let classmates: User[];

  before(async () => {
    site = await createSite(db(), { origin: 'https://limits.school.example', name: 'Limits School', subdomain: 'limits' });
    hammered = await makeUser(db(), site, ['student'], 'Hammered Account');
    classmates = [];
    for (let index = 0; index < 3; index += 1) classmates.push(await makeUser(db(), site, ['student'], `Classmate ${index}`));
  });
  beforeEach(async function () {
    // Exact counts below: no test may straddle a window boundary, where the counts start weighing as the previous window.
    this.timeout(300_000);
    await startOfRoomyWindow(SIGN_IN_LIMITS.perAddress.windowSeconds, 150);
    await db()('rate_limit_counters').delete();
  });

  const attempt = (email: string, password: string) => signInWithPassword(db(), { siteId: site.id, email, password, clientAddress: SCHOOL });
  const addressCount = () => currentHits(db(), signInBuckets('any@example.com', SCHOOL).address, SIGN_IN_LIMITS.perAddress.windowSeconds);

  it('one person hammering one account is stopped by the account limit; the address keeps its allowance for everyone else', async function () {
    this.timeout(600_000);
    const { perAccount, perAddress } = SIGN_IN_LIMITS;
    const outcomes = [];
    for (let index = 0; index < perAddress.limit + 5; index += 1) outcomes.push((await attempt(hammered.email, `guess-${index}`)).kind);
    expect(outcomes.slice(0, perAccount.limit)).to.deep.equal(Array(perAccount.limit).fill('invalid_credentials'));
    expect(new Set(outcomes.slice(perAccount.limit))).to.deep.equal(new Set(['rate_limited']));
    // Only the failures the account limit let through count against the address.
    expect(await addressCount()).to.equal(perAccount.limit);
    for (const classmate of classmates) expect((await attempt(classmate.email, PASSWORD)).kind).to.equal('signed_in');
  });

  it('a typo followed by the right password gives its failures back to the address and the account', async function () {
    // Every attempt here checks a password (scrypt): slow on a busy machine.
    this.timeout(600_000);
    for (const classmate of classmates) {
      expect((await attempt(classmate.email, 'typo')).kind).to.equal('invalid_credentials');
      expect((await attempt(classmate.email, 'typo again')).kind).to.equal('invalid_credentials');
      expect((await attempt(classmate.email, PASSWORD)).kind).to.equal('signed_in');
    }
    expect(await addressCount()).to.equal(0);
  });

  it('failures spread over many accounts still reach the address limit', async function () {
    this.timeout(600_000);
    const { perAddress } = SIGN_IN_LIMITS;
    for (let index = 0; index < perAddress.limit; index += 1) expect((await attempt(`sprayed-${index}@example.com`, 'Summer2026!')).kind).to.equal('invalid_credentials');
    const refused = await attempt(classmates[0]!.email, PASSWORD);
    expect(refused).to.include({ kind: 'rate_limited', limitedBy: 'address' });
    // A refusal by the address limit is no failure of the account.
    const account = signInBuckets(classmates[0]!.email, SCHOOL).account;
    expect(await currentHits(db(), account, SIGN_IN_LIMITS.perAccount.windowSeconds)).to.equal(0);
  });
});
