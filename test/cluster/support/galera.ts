/**
 * The three-node MariaDB Galera cluster of ../shared/scale/galera.sh (SQL on 127.0.0.1:3311-3313, root, no password).
 *
 * acquireCluster() works from both machine states: when no node answers it runs `galera.sh start` and
 * releaseCluster() runs `galera.sh stop`; when all three answer it uses the cluster as found and leaves it running;
 * when only some answer it starts the missing nodes itself (they join the running ones) and stops just those again.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import knexFactory, { type Knex } from 'knex';
import mysql from 'mysql2/promise';
import { PROJECT_ROOT } from '../../../src/shared/paths.js';

export type NodeNumber = 1 | 2 | 3;
export const NODES: readonly NodeNumber[] = [1, 2, 3];

/**
 * The cluster script: SCHOOLGATE_GALERA_SCRIPT, else the workplace's copy beside this checkout or at its usual place
 * (a clean clone for CI may live elsewhere than the working copy).
 */
const GALERA_SCRIPT_CANDIDATES = [process.env.SCHOOLGATE_GALERA_SCRIPT, path.resolve(PROJECT_ROOT, '../shared/scale/galera.sh'), '/work/shared/scale/galera.sh'].filter((candidate): candidate is string => candidate !== undefined);
export const GALERA_SCRIPT = GALERA_SCRIPT_CANDIDATES.find((candidate) => fs.existsSync(candidate)) ?? GALERA_SCRIPT_CANDIDATES[0] ?? 'galera.sh';
export const GALERA_DIR = process.env.GALERA_DIR ?? '/tmp/galera';

export function nodePort(node: NodeNumber): number {
  return 3310 + node;
}

/** DATABASE_URL of `database` on one node. */
export function nodeUrl(node: NodeNumber, database: string): string {
  return `mysql://root@127.0.0.1:${nodePort(node)}/${database}`;
}

/**
 * The test observes the cluster with causal reads (wsrep_sync_wait = 1: a read first waits until the node has applied
 * every write set the cluster committed before it), so what it inspects is never older than what an instance answered.
 */
export const CAUSAL_READS = 'SET SESSION wsrep_sync_wait = 1';

/** A short-lived admin connection to one node (no default database unless given), with causal reads. */
export async function connectNode(node: NodeNumber, database?: string): Promise<mysql.Connection> {
  const connection = await mysql.createConnection({ host: '127.0.0.1', port: nodePort(node), user: 'root', connectTimeout: 2000, ...(database ? { database } : {}), timezone: 'Z' });
  await connection.query(CAUSAL_READS);
  return connection;
}

/** A knex pool on one node with the product's connection settings plus causal reads, for fixtures and inspection. */
export function knexOnNode(node: NodeNumber, database: string): Knex {
  return knexFactory({
    client: 'mysql2',
    connection: { host: '127.0.0.1', port: nodePort(node), user: 'root', database, timezone: 'Z', charset: 'utf8mb4', supportBigNumbers: true, bigNumberStrings: false },
    pool: {
      min: 0,
      max: 4,
      afterCreate(connection: { query(sql: string, callback: (error: Error | null) => void): void }, done: (error: Error | null, connection: unknown) => void) {
        connection.query(CAUSAL_READS, (error) => done(error, connection));
      },
    },
  });
}

/** Runs one statement on a node and closes the connection. */
export async function onNode<T = unknown>(node: NodeNumber, sql: string, params: unknown[] = [], database?: string): Promise<T[]> {
  const connection = await connectNode(node, database);
  try {
    const [rows] = await connection.query(sql, params);
    return rows as T[];
  } finally {
    await connection.end();
  }
}

export async function nodeAnswers(node: NodeNumber): Promise<boolean> {
  try {
    await onNode(node, 'SELECT 1');
    return true;
  } catch {
    return false;
  }
}

/** wsrep_cluster_size as node `node` sees it, or 0 when it does not answer. */
export async function clusterSize(node: NodeNumber): Promise<number> {
  try {
    const rows = await onNode<{ Value: string }>(node, "SHOW STATUS LIKE 'wsrep_cluster_size'");
    return Number(rows[0]?.Value ?? 0);
  } catch {
    return 0;
  }
}

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await sleep(500);
  }
}

export async function waitForClusterSize(size: number, timeoutMs = 90000): Promise<void> {
  await waitFor(`wsrep_cluster_size ${size} on node 1`, timeoutMs, async () => (await clusterSize(1)) === size);
}

function runScript(command: 'start' | 'stop' | 'reset', timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [GALERA_SCRIPT, command], { env: { ...process.env, GALERA_DIR }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`galera.sh ${command} exited with ${code}: ${output.trim()}`));
    });
  });
}

export function nodePid(node: NodeNumber): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(GALERA_DIR, `n${node}`, 'mysqld.pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGKILL of a node's mariadbd, as a crash or a pulled plug: no goodbye to the other nodes. Resolves, once the process
 * is gone, with its pid and the moment the signal was sent.
 */
export async function killNode(node: NodeNumber): Promise<{ pid: number; signalledAt: number }> {
  const pid = nodePid(node);
  if (pid === null || !alive(pid)) throw new Error(`node ${node} has no running mariadbd (pid file ${GALERA_DIR}/n${node}/mysqld.pid)`);
  process.kill(pid, 'SIGKILL');
  const signalledAt = Date.now();
  await waitFor(`node ${node} (pid ${pid}) to exit`, 30000, async () => !alive(pid));
  return { pid, signalledAt };
}

/**
 * SIGTERM of a node's mariadbd: a clean shutdown, in which the node tells the others it leaves. Resolves, once the
 * process is gone, with its pid and the moment the signal was sent.
 */
export async function stopNodeCleanly(node: NodeNumber, timeoutMs = 60000): Promise<{ pid: number; signalledAt: number }> {
  const pid = nodePid(node);
  if (pid === null || !alive(pid)) throw new Error(`node ${node} has no running mariadbd (pid file ${GALERA_DIR}/n${node}/mysqld.pid)`);
  process.kill(pid, 'SIGTERM');
  const signalledAt = Date.now();
  await waitFor(`node ${node} (pid ${pid}) to shut down`, timeoutMs, async () => !alive(pid));
  return { pid, signalledAt };
}

export interface WsrepState {
  /** wsrep_local_state_comment: Joining, Joined, Donor/Desynced, Synced, Initialized… */
  state: string;
  /** wsrep_ready: whether the node accepts queries (OFF: they fail with errno 1047). */
  ready: boolean;
  /** wsrep_cluster_size as this node sees it. */
  clusterSize: number;
}

/**
 * A node's Galera state, read without causal reads (SHOW STATUS is answered locally, even while the cluster stalls),
 * or null when the node does not answer SQL within the connect timeout.
 */
export async function wsrepState(node: NodeNumber, connectTimeoutMs = 1000): Promise<WsrepState | null> {
  let connection: mysql.Connection | undefined;
  try {
    connection = await mysql.createConnection({ host: '127.0.0.1', port: nodePort(node), user: 'root', connectTimeout: connectTimeoutMs });
    const [rows] = await connection.query("SHOW STATUS WHERE Variable_name IN ('wsrep_local_state_comment', 'wsrep_ready', 'wsrep_cluster_size')");
    const values = new Map((rows as Array<{ Variable_name: string; Value: string }>).map((row) => [row.Variable_name, row.Value]));
    return { state: values.get('wsrep_local_state_comment') ?? '', ready: values.get('wsrep_ready') === 'ON', clusterSize: Number(values.get('wsrep_cluster_size') ?? 0) };
  } catch {
    return null;
  } finally {
    await connection?.end().catch(() => undefined);
  }
}

/** A node's Galera provider options (wsrep_provider_options), by name. */
export async function providerOptions(node: NodeNumber): Promise<Map<string, string>> {
  const rows = await onNode<{ Value: string }>(node, "SHOW VARIABLES LIKE 'wsrep_provider_options'");
  const options = new Map<string, string>();
  for (const part of (rows[0]?.Value ?? '').split(';')) {
    const [name, ...value] = part.split('=');
    if (name && name.trim() !== '') options.set(name.trim(), value.join('=').trim());
  }
  return options;
}

/** Milliseconds of a Galera duration option (ISO 8601: PT5S, PT0.5S, PT1M, P1D). */
export function durationMs(iso: string): number {
  const match = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(iso.trim());
  if (!match) throw new Error(`not an ISO 8601 duration: ${iso}`);
  const [days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  return Math.round(((((days ?? 0) * 24 + (hours ?? 0)) * 60 + (minutes ?? 0)) * 60 + (seconds ?? 0)) * 1000);
}

/** chown -R nobody:nogroup and chmod -R a+rwX of a node's data directory. */
function handOverToSstReceiver(target: string): void {
  const NOBODY = 65534;
  const stat = fs.lstatSync(target);
  if (stat.isSymbolicLink()) return;
  if (process.getuid?.() === 0) fs.chownSync(target, NOBODY, NOBODY);
  if (stat.isDirectory()) {
    fs.chmodSync(target, 0o777);
    for (const entry of fs.readdirSync(target)) handOverToSstReceiver(path.join(target, entry));
  } else {
    fs.chmodSync(target, (stat.mode & 0o777) | 0o666);
  }
}

/** Starts one node's mariadbd detached from us (it outlives the test run), joining the running cluster. */
export async function startNode(node: NodeNumber, timeoutMs = 120000): Promise<void> {
  const config = path.join(GALERA_DIR, `n${node}`, 'my.cnf');
  if (!fs.existsSync(config)) throw new Error(`no ${config}: start the cluster with ${GALERA_SCRIPT} start first`);
  // A node that crashed rejoins by a full state transfer (rsync SST), whose receiving rsync daemon drops to nobody
  // when the node runs as root: it must be able to write, and set the modes of, the files already in the data
  // directory, so they become nobody's (mariadbd, as root, still reads and writes them).
  handOverToSstReceiver(path.join(GALERA_DIR, `n${node}`, 'data'));
  const child = spawn('mariadbd', [`--defaults-file=${config}`], { detached: true, stdio: 'ignore' });
  child.unref();
  await waitFor(`node ${node} to answer SQL`, timeoutMs, () => nodeAnswers(node));
}

export interface ClusterLease {
  /** How the cluster was found: a healthy running cluster is left running, anything else is stopped again. */
  found: 'running' | 'restarted';
}

async function healthy(): Promise<boolean> {
  const answering = await Promise.all(NODES.map((node) => nodeAnswers(node)));
  return answering.every(Boolean) && (await clusterSize(1)) === 3;
}

/**
 * A three-node cluster to test on. A healthy running one is used as it is. Anything else (stopped, some nodes down, a
 * lone node that lost its peers) is stopped and started afresh; when the nodes' saved state will not let node 1
 * bootstrap (it was not the last to leave), the cluster's data is reset: it holds only scratch databases.
 */
export async function acquireCluster(log: (line: string) => void = () => undefined): Promise<ClusterLease> {
  if (await healthy()) {
    log('cluster: all three nodes answer; using the running cluster and leaving it running');
    return { found: 'running' };
  }
  log(`cluster: not running as a healthy three-node cluster; ${GALERA_SCRIPT} stop, then start`);
  await runScript('stop', 240000);
  try {
    await runScript('start', 240000);
  } catch (error) {
    log(`cluster: start failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); ${GALERA_SCRIPT} reset, then start`);
    await runScript('reset', 240000);
    await runScript('start', 240000);
  }
  await waitForClusterSize(3);
  return { found: 'restarted' };
}

/** Leaves the machine as acquireCluster found it: a cluster it started is stopped. Node 2 must be running again (or stopped) before this. */
export async function releaseCluster(lease: ClusterLease | undefined, log: (line: string) => void = () => undefined): Promise<void> {
  if (lease?.found !== 'restarted') return;
  log(`cluster: ${GALERA_SCRIPT} stop`);
  await runScript('stop', 240000);
}

/** A fresh database name per run, so data of earlier runs never matters. */
export function scratchDatabaseName(purpose: string): string {
  return `schoolgate_cluster_${purpose}_${process.pid}_${Date.now().toString(36)}`;
}

export async function createDatabase(name: string): Promise<void> {
  await onNode(1, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
}

export async function dropDatabase(name: string): Promise<void> {
  for (const node of NODES) {
    try {
      await onNode(node, `DROP DATABASE IF EXISTS \`${name}\``);
      return;
    } catch {
      // that node is down: another one replicates the drop
    }
  }
}
