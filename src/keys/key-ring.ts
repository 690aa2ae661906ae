import { createHash } from 'node:crypto';
import { ConfigError } from '../config/config-error.js';
import { parseDatabaseUrl } from '../config/database-url.js';
import { KEY_ENCRYPTION_ENV, parseKeyEncryption, type KeyEncryptionConfig } from '../config/key-encryption.js';
import { readOrCreateKeyFile } from './generated-key-file.js';

/** A 256-bit key that encrypts private signing keys, named by `id` in every ciphertext it makes. */
export interface KeyEncryptionKey {
  id: string;
  secret: Uint8Array;
}

/** The key-encryption keys one process holds: it encrypts with `current` and decrypts with any of them. */
export interface KeyRing {
  current: KeyEncryptionKey;
  /** The current key and the previous ones, by id. */
  byId: ReadonlyMap<string, KeyEncryptionKey>;
  /** Set when the current key is the one generated for an SQLite store; `created` when this call wrote the file. */
  generated?: { file: string; created: boolean };
}

/** Nothing to encrypt signing keys with: a MySQL store with no key configured. */
export class KeyEncryptionKeyMissingError extends ConfigError {
  constructor() {
    super(
      `no key-encryption key for the signing keys: set ${KEY_ENCRYPTION_ENV.key} (32 random bytes in base64url, e.g. from \`openssl rand -base64 32\`) or ${KEY_ENCRYPTION_ENV.keyFile}; only an SQLite store generates one (docs/signing-keys.md)`,
    );
  }
}

/**
 * The key's id: the start of its RFC 7638 thumbprint as an `oct` JWK (SHA-256 over {"k","kty"}). It names the key
 * without revealing it, and is the same in every process that holds the key.
 */
export function keyEncryptionKeyId(secret: Uint8Array): string {
  const canonical = `{"k":"${Buffer.from(secret).toString('base64url')}","kty":"oct"}`;
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

function keyFrom(secret: Uint8Array): KeyEncryptionKey {
  return { id: keyEncryptionKeyId(secret), secret };
}

/** Resolves the settings to keys, generating the SQLite store's key file on first use; throws when there is no key. */
export function keyRingFrom(config: KeyEncryptionConfig): KeyRing {
  let current: KeyEncryptionKey;
  let generated: KeyRing['generated'];
  if (config.current) {
    current = keyFrom(config.current);
  } else if (config.generatedKeyFile) {
    const file = readOrCreateKeyFile(config.generatedKeyFile);
    current = keyFrom(file.secret);
    generated = { file: config.generatedKeyFile, created: file.created };
  } else {
    throw new KeyEncryptionKeyMissingError();
  }
  const byId = new Map([current, ...config.previous.map(keyFrom)].map((key) => [key.id, key]));
  return { current, byId, ...(generated ? { generated } : {}) };
}

const WATCHED = ['DATABASE_URL', ...Object.values(KEY_ENCRYPTION_ENV)];
let resolved: { settings: string; ring: KeyRing } | undefined;

/**
 * The keys this process's environment configures, as the server and the CLI read them. Resolved on first use and
 * again only when one of the variables changes; key files are read then, so a changed file needs a restart.
 */
export function configuredKeyRing(env: NodeJS.ProcessEnv = process.env): KeyRing {
  const settings = JSON.stringify(WATCHED.map((name) => env[name] ?? null));
  if (resolved?.settings !== settings) {
    resolved = { settings, ring: keyRingFrom(parseKeyEncryption(env, parseDatabaseUrl(env.DATABASE_URL))) };
  }
  return resolved.ring;
}
