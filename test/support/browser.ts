import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

/** Playwright drives Debian's Chromium; browser tests fail, never skip, without it. */
export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`The browser test needs Debian's Chromium at ${CHROMIUM}, which is missing. Install it with: apt-get install -y chromium`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

export interface CallbackServer {
  url: string;
  received: URL[];
  close(): Promise<void>;
}

/** A client's redirect_uri: a tiny server on 127.0.0.1 that records every callback it receives. */
export async function startCallbackServer(): Promise<CallbackServer> {
  const received: URL[] = [];
  const server = http.createServer((req, res) => {
    received.push(new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Callback</title><p>Callback received.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
