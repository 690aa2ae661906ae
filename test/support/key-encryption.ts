import { KEY_ENCRYPTION_ENV } from '../../src/config/key-encryption.js';

/**
 * The key-encryption key every test server and CLI run shares (docs/signing-keys.md), so a key written by a CLI
 * child process is readable by an in-process server on the same scratch database. test/signing-keys.test.ts sets
 * its own keys where the key itself is under test.
 */
export const TEST_KEY_ENCRYPTION_KEY = Buffer.from('schoolgate-test-key-encrypt-0032').toString('base64url');

/** The environment of a child process (server or CLI): the test key and no other key settings. */
export const TEST_KEY_ENCRYPTION_ENV: Record<string, string | undefined> = {
  [KEY_ENCRYPTION_ENV.key]: TEST_KEY_ENCRYPTION_KEY,
  [KEY_ENCRYPTION_ENV.keyFile]: undefined,
  [KEY_ENCRYPTION_ENV.previous]: undefined,
  [KEY_ENCRYPTION_ENV.previousFile]: undefined,
};

/** In-process servers read the key from this process's environment, as `npm start` does. */
export function useTestKeyEncryptionKey(): void {
  for (const [name, value] of Object.entries(TEST_KEY_ENCRYPTION_ENV)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}
