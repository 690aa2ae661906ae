import fs from 'node:fs';
import tls from 'node:tls';
import { ServerError } from '../errors.js';

/** Names a PEM file of extra certificate authorities the metadata-document fetcher trusts (tests, private PKI). */
export const EXTRA_CA_ENV = 'SCHOOLGATE_EXTRA_CA_FILE';

let loaded: { file: string; certificates: string[] } | undefined;

/** Node's default trust store: on Node 22.15+ it includes NODE_EXTRA_CA_CERTS and any system store in use. */
function defaultCertificates(): readonly string[] {
  const getCACertificates = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
  return typeof getCACertificates === 'function' ? getCACertificates('default') : tls.rootCertificates;
}

/**
 * The `ca` option for the fetch: undefined (Node's defaults) unless SCHOOLGATE_EXTRA_CA_FILE is set, then the
 * default authorities plus the file's. Read lazily on the first fetch after the variable is set or changed, so a
 * server that never fetches a document never reads it.
 */
export function trustedCertificates(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const file = env[EXTRA_CA_ENV]?.trim();
  if (!file) return undefined;
  if (loaded?.file !== file) {
    let pem: string;
    try {
      pem = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new ServerError(`${EXTRA_CA_ENV} names ${file}, which cannot be read (${error instanceof Error ? error.message : String(error)})`);
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ServerError(`${EXTRA_CA_ENV} names ${file}, which holds no PEM certificate`);
    loaded = { file, certificates: [...defaultCertificates(), pem] };
  }
  return loaded.certificates;
}
