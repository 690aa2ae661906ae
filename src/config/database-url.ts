import path from 'node:path';
import { ConfigError } from './config-error.js';

export type DatabaseConfig =
  | { client: 'sqlite'; filename: string }
  | { client: 'mysql'; url: string; host: string; port: number; user: string; password: string; database: string };

const DEFAULT_SQLITE_FILE = path.join('data', 'schoolgate.sqlite');

export function parseDatabaseUrl(raw: string | undefined): DatabaseConfig {
  if (raw === undefined || raw.trim() === '') return { client: 'sqlite', filename: path.resolve(DEFAULT_SQLITE_FILE) };
  if (raw.startsWith('sqlite:')) {
    // sqlite:relative/file.db, sqlite:/abs/file.db or sqlite:///abs/file.db
    const file = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '') throw new ConfigError('DATABASE_URL: sqlite: needs a file path, e.g. sqlite:data/schoolgate.sqlite');
    return { client: 'sqlite', filename: path.resolve(file) };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`DATABASE_URL is not a URL: expected mysql://user:password@host:3306/database or sqlite:path`);
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    throw new ConfigError(`DATABASE_URL: unsupported scheme "${url.protocol}" (use mysql://… or sqlite:…)`);
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (url.hostname === '' || database === '' || database.includes('/')) {
    throw new ConfigError('DATABASE_URL: a MySQL URL needs a host and a database name, e.g. mysql://root@127.0.0.1:3306/test');
  }
  const port = url.port === '' ? 3306 : Number(url.port);
  return {
    client: 'mysql',
    url: raw,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
    database,
  };
}
