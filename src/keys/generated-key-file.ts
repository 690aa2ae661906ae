import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/config-error.js';
import { parseKeyEncryptionKey } from '../config/key-encryption.js';

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function readKey(file: string): Uint8Array | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read the key-encryption key file ${file} (${errorCode(error) ?? String(error)})`);
  }
  return parseKeyEncryptionKey(text, file);
}

/**
 * The key-encryption key of an SQLite store with none configured: read from `file`, or generated there (32 random
 * bytes, base64url, mode 0600) when the file does not exist yet. The key is written to a scratch file first and then
 * linked into place, which fails when the file exists: a server and a CLI run starting together never see a half
 * written file, and the one that loses the race reads the winner's key.
 */
export function readOrCreateKeyFile(file: string): { secret: Uint8Array; created: boolean } {
  const existing = readKey(file);
  if (existing) return { secret: existing, created: false };
  const secret = new Uint8Array(randomBytes(32));
  const scratch = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(scratch, `${Buffer.from(secret).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
    fs.linkSync(scratch, file);
  } catch (error) {
    const raced = errorCode(error) === 'EEXIST' ? readKey(file) : undefined;
    if (raced) return { secret: raced, created: false };
    throw new ConfigError(`cannot create the key-encryption key file ${file} (${errorCode(error) ?? String(error)})`);
  } finally {
    fs.rmSync(scratch, { force: true });
  }
  return { secret, created: true };
}
