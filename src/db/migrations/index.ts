import type { Knex } from 'knex';
import * as sitesAndAccounts from './0001_sites_and_accounts.js';
import * as courses from './0002_courses.js';
import * as productsAndPayments from './0003_products_and_payments.js';
import * as consultingAndEvents from './0004_consulting_and_events.js';
import * as notifications from './0005_notifications.js';
import * as oauth from './0006_oauth.js';
import * as siteContent from './0007_site_content.js';
import * as clientMetadataCache from './0008_client_metadata_cache.js';
import * as adminVersions from './0009_admin_versions.js';
import * as content from './0010_content.js';
import * as people from './0011_people.js';
import * as tokenFamilies from './0012_token_families.js';
import * as housekeeping from './0013_housekeeping.js';
import * as siteProfiles from './0014_site_profiles.js';
import * as signingKeyEncryption from './0015_signing_key_encryption.js';
import * as deprecationUsage from './0016_deprecation_usage.js';
import * as clientAuthenticationAndSessions from './0017_client_authentication_and_sessions.js';
import * as clientAttribution from './0018_client_attribution.js';
import * as trustedDocuments from './0019_trusted_documents.js';
import * as apiUsage from './0020_api_usage.js';
import * as memberListKeys from './0021_member_list_keys.js';
import * as pruneIndexes from './0022_prune_indexes.js';

type Migration = Knex.Migration;

/** The ordered migration list; names are what knex records in knex_migrations, so never rename one. */
const migrations: ReadonlyArray<readonly [string, Migration]> = [
  ['0001_sites_and_accounts', sitesAndAccounts],
  ['0002_courses', courses],
  ['0003_products_and_payments', productsAndPayments],
  ['0004_consulting_and_events', consultingAndEvents],
  ['0005_notifications', notifications],
  ['0006_oauth', oauth],
  ['0007_site_content', siteContent],
  ['0008_client_metadata_cache', clientMetadataCache],
  ['0009_admin_versions', adminVersions],
  ['0010_content', content],
  ['0011_people', people],
  ['0012_token_families', tokenFamilies],
  ['0013_housekeeping', housekeeping],
  ['0014_site_profiles', siteProfiles],
  ['0015_signing_key_encryption', signingKeyEncryption],
  ['0016_deprecation_usage', deprecationUsage],
  ['0017_client_authentication_and_sessions', clientAuthenticationAndSessions],
  ['0018_client_attribution', clientAttribution],
  ['0019_trusted_documents', trustedDocuments],
  ['0020_api_usage', apiUsage],
  ['0021_member_list_keys', memberListKeys],
  ['0022_prune_indexes', pruneIndexes],
];

/** Bundled with the code instead of read from a folder, so the same list runs from src/ (tsx) and dist/ (node). */
export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => migrations.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const entry = migrations.find(([candidate]) => candidate === name);
    if (!entry) throw new Error(`unknown migration ${name}`);
    return entry[1];
  },
};
