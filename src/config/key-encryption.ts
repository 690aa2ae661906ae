import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config-error.js';
import type { DatabaseConfig } from './database-url.js';

/** The variables that name the key-encryption keys of the private signing keys (docs/signing-keys.md). */
export const KEY_ENCRYPTION_ENV = {
  key: 'SCHOOLGATE_KEY_ENCRYPTION_KEY',
  keyFile: 'SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE',
  previous: 'SCHOOLGATE_PREVIOUS_KEY_ENCRYPTION_KEYS',
  previousFile: 'SCHOOLGATE_PREVIOUS_KEY_ENCRYPTION_KEYS_FILE',
} as const;

/** Name of the key file generated next to an SQLite database when no key is configured. */
export const GENERATED_KEY_FILE_NAME = 'key-encryption-key';

export interface KeyEncryptionConfig {
  /** The key new and re-encrypted private signing keys are encrypted with (32 bytes); undefined when none is set. */
  current: Uint8Array | undefined;
  /** Keys that only decrypt: the ones private keys may still be encrypted with while a rotation runs. */
  previous: Uint8Array[];
  /** With no key set and an SQLite store: the file the key is read from, and generated in on first use. */
  generatedKeyFile: string | undefined;
}

// 32 bytes are 43 base64url characters; standard base64 (44 with its padding, `openssl rand -base64 32`) is accepted too.
const KEY_TEXT = /^[A-Za-z0-9_+/-]{43}=?$/;

/**
 * One key in base64url (or base64). The message never repeats the value: it is a secret, and start-up errors are
 * printed and logged.
 */
export function parseKeyEncryptionKey(text: string, source: string): Uint8Array {
  const trimmed = text.trim();
  const bytes = KEY_TEXT.test(trimmed) ? Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64') : undefined;
  if (bytes?.length !== 32) {
    throw new ConfigError(`${source}: not a key-encryption key; expected 32 random bytes in base64url (43 characters), e.g. from \`openssl rand -base64 32\``);
  }
  return new Uint8Array(bytes);
}

function readKeyFile(file: string, variable: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${variable}: cannot read ${file} (${error instanceof Error && 'code' in error ? String(error.code) : String(error)})`);
  }
}

function present(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

/** A value given directly or in a file, never both. */
function valueOrFile(env: NodeJS.ProcessEnv, variable: string, fileVariable: string): { text: string; source: string } | undefined {
  const value = env[variable];
  const file = env[fileVariable];
  if (present(value) && present(file)) throw new ConfigError(`set ${variable} or ${fileVariable}, not both`);
  if (present(value)) return { text: value, source: variable };
  if (present(file)) return { text: readKeyFile(file.trim(), fileVariable), source: `${fileVariable} (${file.trim()})` };
  return undefined;
}

function parsePrevious(given: { text: string; source: string } | undefined): Uint8Array[] {
  if (!given) return [];
  return given.text
    .split(/[\s,]+/)
    .filter((item) => item !== '')
    .map((item, index) => parseKeyEncryptionKey(item, `${given.source}, key ${index + 1}`));
}

/**
 * The key-encryption settings: SCHOOLGATE_KEY_ENCRYPTION_KEY or its _FILE, and the previous keys (comma- or
 * whitespace-separated) or their _FILE. With none set, an SQLite store gets a key file next to its database; a MySQL
 * store gets none, and whatever needs a private signing key refuses to start (the check is not here, so commands
 * that never touch signing keys, such as migrations, run without the key).
 */
export function parseKeyEncryption(env: NodeJS.ProcessEnv, database: DatabaseConfig): KeyEncryptionConfig {
  const current = valueOrFile(env, KEY_ENCRYPTION_ENV.key, KEY_ENCRYPTION_ENV.keyFile);
  return {
    current: current ? parseKeyEncryptionKey(current.text, current.source) : undefined,
    previous: parsePrevious(valueOrFile(env, KEY_ENCRYPTION_ENV.previous, KEY_ENCRYPTION_ENV.previousFile)),
    generatedKeyFile: current === undefined && database.client === 'sqlite' ? path.join(path.dirname(database.filename), GENERATED_KEY_FILE_NAME) : undefined,
  };
}
