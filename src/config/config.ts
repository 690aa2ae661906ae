import { parseVariantName, type Variant } from '../variant.js';
import { ConfigError } from './config-error.js';
import { parseDatabaseTimeouts, type DatabaseTimeouts } from './database-timeouts.js';
import { parseDatabaseUrl, type DatabaseConfig } from './database-url.js';
import { parseKeyEncryption, type KeyEncryptionConfig } from './key-encryption.js';

export type { Variant } from '../variant.js';

export interface Config {
  variant: Variant;
  port: number;
  host: string | undefined;
  /** Origin of the demo school seeded into an empty database. */
  publicOrigin: string;
  /** Honour X-Forwarded-Proto / X-Forwarded-Host when finding a request's site. */
  trustProxy: boolean;
  seedDemo: boolean;
  logLevel: string;
  database: DatabaseConfig;
  /** How long requests wait for the database before answering 503 (docs/operations.md, "Database outages"). */
  databaseTimeouts: DatabaseTimeouts;
  /** The housekeeping job (docs/housekeeping.md). */
  prune: PruneConfig;
  /** How long a site's settings are cached per process; a change made by another process is seen within this. */
  siteCacheSeconds: number;
  /** How many sites each process keeps in memory at most, the least recently asked dropped first. */
  siteCacheSize: number;
  /** How far V8 lets the old generation grow past what survived its last full collection, in percent; 0 leaves it to V8. */
  heapGrowingPercent: number;
  /** Per client address limits on anonymous traffic (docs/oauth.md, "Limits on anonymous traffic"). */
  anonymousLimits: AnonymousLimitsConfig;
  /** The port of the Prometheus metrics listener (docs/operations.md); null: no metrics listener. */
  metricsPort: number | null;
  /** The address the metrics listener binds to (loopback unless told otherwise: metrics are not for the public). */
  metricsHost: string;
  /** The keys that encrypt the private signing keys in the database (docs/signing-keys.md). */
  keyEncryption: KeyEncryptionConfig;
  /** Answer the common /mcp tool calls and resource reads directly (docs/mcp.md); false: every request through the SDK. */
  mcpDirectAnswers: boolean;
  /** Seconds between runs of the back-channel logout delivery (docs/logout.md); 0 = no delivery in this process. */
  logoutDeliveryIntervalSeconds: number;
  /** Seconds between writes of the deprecated-use counts held in memory (docs/versioning.md); 0 = only when the server stops. */
  usageFlushIntervalSeconds: number;
  /** Days of usage counts kept (docs/usage.md); the prune drops older days, and a usage report reaches back at most this far. */
  usageRetentionDays: number;
  /** Require a server-issued nonce in every DPoP proof (RFC 9449 8, 9; docs/oauth.md, DPoP); false: accepted when sent. */
  dpopNonceRequired: boolean;
  /** Seconds the listener stays open after SIGTERM with /readyz answering 503, so load balancers notice (docs/deployment.md, Draining). */
  drainSeconds: number;
  /**
   * Requests handled at once (0: no limit) and how long one waits its turn before it is answered 503 (docs/operations.md,
   * "Requests in flight"; src/http/in-flight-limit.ts).
   */
  requestsInFlight: { requests: number; queueTimeoutMs: number };
}

export interface AnonymousLimitsConfig {
  /** Authorization requests per minute from browsers that are not signed in. */
  authorizePerMinute: number;
  /** Failed token, revocation and registration requests per 10 minutes. */
  failuresPerTenMinutes: number;
}

export interface PruneConfig {
  /** Seconds between runs of the in-server prune; 0 = no job in this process. */
  intervalSeconds: number;
  /** Days revoked and expired tokens (and used codes) are kept before the prune deletes them. */
  retentionDays: number;
  /** Percent of a prune's time spent in its batches (1-100); after each batch it pauses in proportion, leaving the rest to requests. */
  dutyPercent: number;
}

/**
 * A quarter of a prune's time in batches unless SCHOOLGATE_PRUNE_DUTY_PERCENT says otherwise: each pause three times as
 * long as the batch before it. At half, a prune of a large backlog more than tripled userinfo's p99 on a busy machine.
 */
export const DEFAULT_PRUNE_DUTY_PERCENT = 25;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parsePort(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`${name}: "${raw}" is not a port number (0-65535)`);
  return port;
}

function parseBoolean(raw: string | undefined, name: string, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name}: "${raw}" is not a boolean (use true or false)`);
}

function parseCount(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) throw new ConfigError(`${name}: "${raw}" is not a whole number (0 or more)`);
  return value;
}

function parsePositive(raw: string | undefined, name: string, fallback: number): number {
  const value = parseCount(raw, name, fallback);
  if (value === 0) throw new ConfigError(`${name}: must be 1 or more`);
  return value;
}

function parsePercent(raw: string | undefined, name: string, fallback: number): number {
  const value = parsePositive(raw, name, fallback);
  if (value > 100) throw new ConfigError(`${name}: must be from 1 to 100`);
  return value;
}

/** Sites kept per process unless SCHOOLGATE_SITE_CACHE_SIZE says otherwise: a few KB each, so about 30 MB when full. */
export const DEFAULT_SITE_CACHE_SIZE = 10_000;

/** Ten years at most: a day's rows are cheap, but a report over more days than that is not one anybody reads. */
export const MAX_USAGE_RETENTION_DAYS = 3650;
export const DEFAULT_USAGE_RETENTION_DAYS = 90;

function parseUsageRetentionDays(raw: string | undefined): number {
  const name = 'SCHOOLGATE_USAGE_RETENTION_DAYS';
  const value = parsePositive(raw, name, DEFAULT_USAGE_RETENTION_DAYS);
  if (value > MAX_USAGE_RETENTION_DAYS) throw new ConfigError(`${name}: must be from 1 to ${MAX_USAGE_RETENTION_DAYS}, got ${value}`);
  return value;
}

export function parseVariant(raw: string | undefined): Variant {
  const variant = parseVariantName(raw);
  if (variant === null) throw new ConfigError(`SCHOOLGATE_VARIANT: unknown variant "${raw}" (use A or B)`);
  return variant;
}

/** Normalises an origin as the site table stores it: lower-case scheme and host, no default port, no path. */
export function normalizeOrigin(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`"${raw}" is not an origin (expected e.g. https://school.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`"${raw}" is not an http(s) origin`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '' || url.username !== '') {
    throw new ConfigError(`"${raw}" is not an origin: drop the path, query and credentials`);
  }
  return url.origin;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = parsePort(env.PORT, 'PORT', 3000);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL: "${logLevel}" is not one of ${LOG_LEVELS.join(', ')}`);
  const database = parseDatabaseUrl(env.DATABASE_URL);
  return {
    variant: parseVariant(env.SCHOOLGATE_VARIANT),
    port,
    host: env.HOST === '' ? undefined : env.HOST,
    publicOrigin: normalizeOrigin(env.PUBLIC_ORIGIN ?? `http://localhost:${port}`),
    trustProxy: parseBoolean(env.TRUST_PROXY, 'TRUST_PROXY', false),
    seedDemo: parseBoolean(env.SCHOOLGATE_DEMO, 'SCHOOLGATE_DEMO', true),
    logLevel,
    database,
    databaseTimeouts: parseDatabaseTimeouts(env),
    prune: {
      intervalSeconds: parseCount(env.SCHOOLGATE_PRUNE_INTERVAL_SECONDS, 'SCHOOLGATE_PRUNE_INTERVAL_SECONDS', 3600),
      retentionDays: parseCount(env.SCHOOLGATE_PRUNE_RETENTION_DAYS, 'SCHOOLGATE_PRUNE_RETENTION_DAYS', 7),
      dutyPercent: parsePercent(env.SCHOOLGATE_PRUNE_DUTY_PERCENT, 'SCHOOLGATE_PRUNE_DUTY_PERCENT', DEFAULT_PRUNE_DUTY_PERCENT),
    },
    siteCacheSeconds: parseCount(env.SCHOOLGATE_SITE_CACHE_SECONDS, 'SCHOOLGATE_SITE_CACHE_SECONDS', 5),
    siteCacheSize: parsePositive(env.SCHOOLGATE_SITE_CACHE_SIZE, 'SCHOOLGATE_SITE_CACHE_SIZE', DEFAULT_SITE_CACHE_SIZE),
    heapGrowingPercent: parseCount(env.SCHOOLGATE_HEAP_GROWING_PERCENT, 'SCHOOLGATE_HEAP_GROWING_PERCENT', 50),
    metricsPort: env.METRICS_PORT === undefined || env.METRICS_PORT === '' ? null : parsePort(env.METRICS_PORT, 'METRICS_PORT', 0),
    metricsHost: env.METRICS_HOST === undefined || env.METRICS_HOST === '' ? '127.0.0.1' : env.METRICS_HOST,
    anonymousLimits: {
      authorizePerMinute: parsePositive(env.SCHOOLGATE_AUTHORIZE_LIMIT_PER_MINUTE, 'SCHOOLGATE_AUTHORIZE_LIMIT_PER_MINUTE', 60),
      failuresPerTenMinutes: parsePositive(env.SCHOOLGATE_FAILURE_LIMIT_PER_10_MINUTES, 'SCHOOLGATE_FAILURE_LIMIT_PER_10_MINUTES', 100),
    },
    keyEncryption: parseKeyEncryption(env, database),
    mcpDirectAnswers: parseBoolean(env.SCHOOLGATE_MCP_DIRECT_ANSWERS, 'SCHOOLGATE_MCP_DIRECT_ANSWERS', true),
    logoutDeliveryIntervalSeconds: parseCount(env.SCHOOLGATE_LOGOUT_DELIVERY_INTERVAL_SECONDS, 'SCHOOLGATE_LOGOUT_DELIVERY_INTERVAL_SECONDS', 5),
    usageFlushIntervalSeconds: parseCount(env.SCHOOLGATE_USAGE_FLUSH_INTERVAL_SECONDS, 'SCHOOLGATE_USAGE_FLUSH_INTERVAL_SECONDS', 30),
    usageRetentionDays: parseUsageRetentionDays(env.SCHOOLGATE_USAGE_RETENTION_DAYS),
    dpopNonceRequired: parseBoolean(env.SCHOOLGATE_DPOP_NONCE_REQUIRED, 'SCHOOLGATE_DPOP_NONCE_REQUIRED', false),
    drainSeconds: parseCount(env.SCHOOLGATE_DRAIN_SECONDS, 'SCHOOLGATE_DRAIN_SECONDS', 5),
    requestsInFlight: {
      requests: parseCount(env.SCHOOLGATE_REQUESTS_IN_FLIGHT, 'SCHOOLGATE_REQUESTS_IN_FLIGHT', 16),
      queueTimeoutMs: parsePositive(env.SCHOOLGATE_REQUEST_QUEUE_TIMEOUT_MS, 'SCHOOLGATE_REQUEST_QUEUE_TIMEOUT_MS', 10_000),
    },
  };
}
