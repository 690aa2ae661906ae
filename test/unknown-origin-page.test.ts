import type http from 'node:http';
import { expect } from 'chai';
import { startServer, type RunningServer } from '../src/server.js';
import { createLogger } from '../src/shared/logger.js';
import { createSite } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { rawGet } from './support/raw-http.js';
import { testConfig } from './support/server.js';

/**
 * A browser at an origin with no school site (the demo lives at http://localhost:PORT, the browser opened
 * http://127.0.0.1:PORT) gets a page that names the origin it asked for and, while the database holds a single site,
 * links to that site; JSON clients keep the 404 `site_not_found`. With several sites, neither answer names any of them.
 * Requests go over node:http, which sends the Host header as given (fetch sets its own).
 */

/** A GET with the Host header as given and the body as text. */
async function get(port: number, host: string, path: string, accept: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const response = await rawGet(port, host, path, { Accept: accept });
  return { ...response, body: response.body.toString('utf8') };
}

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function hrefs(html: string): string[] {
  return [...html.matchAll(/<a\b[^>]*\shref="([^"]*)"/gi)].map((match) => (match[1] ?? '').replace(/&amp;/g, '&'));
}

describeEachDatabase('an origin with no school site', (scratch) => {
  let running: RunningServer;
  let port: number;
  let siteOrigin: string;

  before(async function () {
    this.timeout(60_000);
    const config = testConfig({ database: scratch().config });
    running = await startServer(config, { db: scratch().db, logger: createLogger(config.logLevel) });
    port = Number(new URL(running.listeningOn).port);
    siteOrigin = `http://localhost:${port}`;
    await createSite(scratch().db, { origin: siteOrigin, name: `Only School ${port}`, subdomain: `only-${port}` });
  });
  after(() => running?.stop(1000));

  describe('while the database holds one site', () => {
    it('answers a browser with a page naming the origin asked for and linking to the one site, with no link back to itself', async () => {
      for (const path of ['/', '/courses/intro', '/docs']) {
        const response = await get(port, `127.0.0.1:${port}`, path, BROWSER);
        expect(response.status, path).to.equal(404);
        expect(response.headers['content-type'], path).to.equal('text/html; charset=utf-8');
        expect(response.body, path).to.contain(`No school site is configured at <code>http://127.0.0.1:${port}</code>`);
        expect(response.body, path).to.contain(`Only School ${port}`);
        expect(hrefs(response.body), path).to.deep.equal([siteOrigin]);
        expect(response.body, path).not.to.contain('There is no page at');
      }
    });

    it('keeps the JSON 404 for machine clients, naming the origin asked for and where the one site is', async () => {
      for (const [path, accept] of [
        ['/', 'application/json'],
        ['/.well-known/openid-configuration', BROWSER],
        ['/member/graphql', BROWSER],
      ] as const) {
        const response = await get(port, `127.0.0.1:${port}`, path, accept);
        expect(response.status, path).to.equal(404);
        expect(response.headers['content-type'], path).to.match(/^application\/json/);
        const body = JSON.parse(response.body) as { error: string; error_description: string };
        expect(body.error).to.equal('site_not_found');
        expect(body.error_description).to.contain(`http://127.0.0.1:${port}`).and.contain(siteOrigin);
      }
    });

    it('names the origin as the server reads it: lower case, no default port', async () => {
      const response = await get(port, `Other-School.EXAMPLE:${port}`, '/', BROWSER);
      expect(response.status).to.equal(404);
      expect(response.body).to.contain(`<code>http://other-school.example:${port}</code>`);
      const defaultPort = await get(port, 'other-school.example:80', '/', BROWSER);
      expect(defaultPort.body).to.contain('<code>http://other-school.example</code>');
    });

    it('still serves the site at its own origin', async () => {
      const response = await get(port, `localhost:${port}`, '/', BROWSER);
      expect(response.status).to.equal(200);
    });
  });

  describe('once the database holds several sites', () => {
    let secondOrigin: string;
    before(async () => {
      secondOrigin = `http://school-two.test:${port}`;
      await createSite(scratch().db, { origin: secondOrigin, name: `Second School ${port}`, subdomain: `second-${port}` });
    });

    it('names only the origin asked for, in the page and in the JSON: no list of sites', async () => {
      const page = await get(port, `127.0.0.1:${port}`, '/', BROWSER);
      expect(page.status).to.equal(404);
      expect(page.body).to.contain(`<code>http://127.0.0.1:${port}</code>`);
      expect(hrefs(page.body)).to.deep.equal([]);
      for (const hidden of [siteOrigin, secondOrigin, `Only School ${port}`, `Second School ${port}`]) expect(page.body).not.to.contain(hidden);
      const json = await get(port, `127.0.0.1:${port}`, '/', 'application/json');
      expect(json.status).to.equal(404);
      expect(json.body).to.contain(`http://127.0.0.1:${port}`);
      for (const hidden of [siteOrigin, secondOrigin]) expect(json.body).not.to.contain(hidden);
    });
  });
});
