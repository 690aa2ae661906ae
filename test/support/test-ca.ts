import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { EXTRA_CA_ENV } from '../../src/oauth/metadata-document/index.js';

/**
 * A throwaway certificate authority and a server certificate it signed for localhost, 127.0.0.1 and ::1, made at test
 * time with the openssl command line (present on Debian and in CI images; no npm package needed). Nothing outside the
 * test trusts it: the fetcher trusts it only through SCHOOLGATE_EXTRA_CA_FILE = `caFile`.
 */
export interface TestCa {
  dir: string;
  /** PEM file of the CA certificate, for SCHOOLGATE_EXTRA_CA_FILE. */
  caFile: string;
  serverKey: string;
  serverCert: string;
  cleanup(): void;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString('utf8') ?? '';
    const missing = (error as { code?: string }).code === 'ENOENT';
    throw new Error(missing ? 'the tests need the openssl command (apt-get install openssl)' : `openssl ${args[0]} failed: ${stderr}`);
  }
}

export function createTestCa(): TestCa {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-test-ca-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=schoolgate throwaway test CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    dir,
  );
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  fs.writeFileSync(
    path.join(dir, 'server.ext'),
    ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1', ''].join('\n'),
  );
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '0x5c400001', '-days', '2', '-extfile', 'server.ext', '-out', 'server.pem'], dir);
  return {
    dir,
    caFile: path.join(dir, 'ca.pem'),
    serverKey: fs.readFileSync(path.join(dir, 'server.key'), 'utf8'),
    serverCert: fs.readFileSync(path.join(dir, 'server.pem'), 'utf8'),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A local HTTPS server with per-path handlers that counts the requests each path received. */
export interface DocumentServer {
  port: number;
  /** https://HOST:PORT + path; HOST defaults to localhost. */
  url(pathname: string, host?: string): string;
  route(pathname: string, handler: Handler): void;
  /** Requests received on a path, with their headers. */
  requests(pathname: string): IncomingMessage['headers'][];
  close(): Promise<void>;
}

/** Serves `body` as JSON with extra headers (Cache-Control, ETag, …). */
export function json(body: unknown, headers: Record<string, string> = {}): Handler {
  return (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
}

export async function startDocumentServer(ca: TestCa): Promise<DocumentServer> {
  const handlers = new Map<string, Handler>();
  const seen = new Map<string, IncomingMessage['headers'][]>();
  const server = https.createServer({ key: ca.serverKey, cert: ca.serverCert }, (request, response) => {
    const pathname = new URL(request.url ?? '/', 'https://localhost').pathname;
    seen.set(pathname, [...(seen.get(pathname) ?? []), request.headers]);
    const handler = handlers.get(pathname);
    if (handler) handler(request, response);
    else response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"not_found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (pathname, host = 'localhost') => `https://${host}:${port}${pathname}`,
    route: (pathname, handler) => void handlers.set(pathname, handler),
    requests: (pathname) => seen.get(pathname) ?? [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface TrustedDocumentServer {
  ca: TestCa;
  server: DocumentServer;
}

/**
 * For the enclosing describe: a local HTTPS document server whose throwaway CA the fetcher trusts through
 * SCHOOLGATE_EXTRA_CA_FILE (the previous value comes back afterwards). Registers the mocha hooks; the fields are set
 * once the describe's `before` hooks have run.
 */
export function useTrustedDocumentServer(): TrustedDocumentServer {
  const trusted = {} as TrustedDocumentServer;
  let previousCaFile: string | undefined;
  before(async function () {
    this.timeout(120_000);
    trusted.ca = createTestCa();
    trusted.server = await startDocumentServer(trusted.ca);
    previousCaFile = process.env[EXTRA_CA_ENV];
    process.env[EXTRA_CA_ENV] = trusted.ca.caFile;
  });
  after(async () => {
    if (previousCaFile === undefined) delete process.env[EXTRA_CA_ENV];
    else process.env[EXTRA_CA_ENV] = previousCaFile;
    await trusted.server?.close();
    trusted.ca?.cleanup();
  });
  return trusted;
}
