/**
 * Safe HTML by construction (src/http/html.ts): the `html` tagged template and its helpers, a scan of src/ for
 * markup built any other way, and every server-rendered page over real HTTP, on both stores, with hostile text in
 * every field an operator (or an application's metadata) controls. A page passes when its markup is what the
 * templates wrote and nothing more: only known tags, attributes always double-quoted, no event-handler attribute, no
 * href/src/action with a script scheme, no inline script, no bidi control character; and the hostile text is shown,
 * escaped, where the page names that field.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { createUser, type User } from '../src/accounts/users.js';
import { grantRole, type Role } from '../src/accounts/roles.js';
import { insertPair, newGrantId } from '../src/oauth/tokens/store.js';
import { html, Html, joinHtml, safeUrl, trustedHtml } from '../src/http/html.js';
import { AdminApi, issueToken, type Schemas } from './support/admin.js';
import { browserRequest, buildAuthorizationUrl, CookieJar, createPkcePair, findForm, type BrowserAnswer } from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { startTestServer, type TestServer } from './support/server.js';
import { json, useTrustedDocumentServer } from './support/test-ca.js';

const RLO = '\u202E';
/** Every attack at once: markup, both attribute break-outs, a script-block break-out, template syntax, an entity, a bidi override. */
const HOSTILE = `<script>alert(1)</script>"><img src=x onerror=alert(1)>'onmouseover='alert(1)</script><script>alert(1)</script>{{7*7}}&amp;${RLO}gnp.exe`;
/** HOSTILE as the pages must show it: escaped, the override replaced by U+FFFD (src/http/html.ts). */
const HOSTILE_SHOWN =
  '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;onmouseover=&#39;alert(1)&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;{{7*7}}&amp;amp;\uFFFDgnp.exe';
const SCRIPT_URLS = ['javascript:alert(1)', ' JaVaScRiPt:alert(1)'];
/** An address createUser accepts (no spaces, one @) that breaks out of an attribute and carries an override. */
function hostileEmail(local: string): string {
  return `"><svg/onload=alert(1)>'${RLO}${local}@x.example`;
}
function hostileEmailShown(local: string): string {
  return `&quot;&gt;&lt;svg/onload=alert(1)&gt;&#39;\uFFFD${local}@x.example`;
}
const PASSWORD = 'correct horse battery staple';

// --- The template module -------------------------------------------------------------------------------------------

describe('html: the auto-escaping template (src/http/html.ts)', () => {
  it('escapes & < > " \' and backtick in every interpolated string and number', () => {
    expect(html`<p title="${'a"b'}">${`<b>&'\``}</p>`.toString()).to.equal('<p title="a&quot;b">&lt;b&gt;&amp;&#39;&#96;</p>');
    expect(html`<td>${42}</td><td>${0}</td>`.toString()).to.equal('<td>42</td><td>0</td>');
  });

  it('inserts fragments as they are, arrays element by element, and nothing for null, undefined and false', () => {
    const inner = html`<strong>${'<x>'}</strong>`;
    expect(html`<p>${inner}</p>`.toString()).to.equal('<p><strong>&lt;x&gt;</strong></p>');
    expect(html`<ul>${['<a>', html`<li>b</li>`, ['<c>', null], undefined, false]}</ul>`.toString()).to.equal('<ul>&lt;a&gt;<li>b</li>&lt;c&gt;</ul>');
    expect(joinHtml([html`<i>1</i>`, '<2>'], html`<br>`).toString()).to.equal('<i>1</i><br>&lt;2&gt;');
    expect(joinHtml(['a', 'b'], '<&>').toString()).to.equal('a&lt;&amp;&gt;b');
  });

  it('replaces the bidi embedding, override and isolate controls with U+FFFD, and keeps the marks', () => {
    const controls = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069';
    expect(html`${`a${controls}b`}`.toString()).to.equal(`a${'\uFFFD'.repeat(9)}b`);
    expect(html`${'\u200Eשלום\u200F'}`.toString()).to.equal('\u200Eשלום\u200F');
  });

  it('lets only relative, http, https and mailto URLs through safeUrl', () => {
    for (const url of ['/admin', '?after=x&y=1', '#top', 'page', '//cdn.example/x', 'http://a.example/', 'HTTPS://a.example/', 'mailto:a@b.example']) {
      expect(safeUrl(url).toString(), url).to.equal(html`${url}`.toString());
    }
    for (const url of [...SCRIPT_URLS, 'java\tscript:alert(1)', '\u0000javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)', 'file:///etc/passwd']) {
      expect(safeUrl(url).toString(), url).to.equal('#');
    }
  });

  it('makes Html only through html, safeUrl and trustedHtml', () => {
    expect(trustedHtml('<hr>').toString()).to.equal('<hr>');
    const Forged = Html as unknown as new (token: symbol, markup: string) => Html;
    expect(() => new Forged(Symbol('Html'), '<script>')).to.throw(TypeError);
  });
});

// --- The sources ---------------------------------------------------------------------------------------------------

const SRC = path.resolve(import.meta.dirname, '../src');
const TEMPLATE_MODULE = path.join(SRC, 'http', 'html.ts');
/** An HTML tag in literal text (not a TypeScript generic: those names are not HTML elements). */
const MARKUP = /<\/?(?:!doctype|html|head|body|title|meta|link|style|script|p|a|ul|ol|li|div|span|h[1-6]|form|input|button|label|textarea|select|option|table|thead|tbody|tr|th|td|code|pre|strong|em|b|i|br|hr|img|main|nav|section|dl|dt|dd|fieldset|legend|noscript|bdi|svg|iframe)\b/i;
/** Text that ends inside a URL attribute: the next value is a URL. */
const URL_ATTRIBUTE_OPEN = /\s(?:href|src|action|formaction|poster|srcset)="$/i;
/** A constant path such as ADMIN_PATHS.home or OPENAPI_DOCUMENT_PATH: written in code, never anyone's input. */
const CONSTANT = /^[A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)?$/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function isHtmlTagged(node: ts.Node): boolean {
  return ts.isTaggedTemplateExpression(node.parent) && node.parent.template === node && node.parent.tag.getText() === 'html';
}

function literalText(node: ts.Node): string | null {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : null;
}

/** Markup built outside `html`, and URL attributes filled with something other than safeUrl() or a constant. */
function markupProblems(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const problems: string[] = [];
  const at = (node: ts.Node) => `${path.relative(SRC, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isTemplateExpression(node)) {
      const texts = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)];
      if (!isHtmlTagged(node) && texts.some((text) => MARKUP.test(text))) problems.push(`${at(node)}: markup in an untagged template string`);
      if (isHtmlTagged(node)) {
        node.templateSpans.forEach((span, index) => {
          const expression = span.expression;
          const isSafeUrlCall = ts.isCallExpression(expression) && expression.expression.getText() === 'safeUrl';
          if (URL_ATTRIBUTE_OPEN.test(texts[index] ?? '') && !isSafeUrlCall && !CONSTANT.test(expression.getText())) {
            problems.push(`${at(span)}: a URL attribute filled without safeUrl(): ${expression.getText()}`);
          }
        });
      }
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const sides = [literalText(node.left), literalText(node.right)];
      if (sides.some((text) => text !== null && MARKUP.test(text))) problems.push(`${at(node)}: markup joined with +`);
    }
    if (ts.isCallExpression(node) && node.expression.getText() === 'trustedHtml' && file !== TEMPLATE_MODULE) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = source.getFullText().split('\n');
      if (!`${lines[line - 1] ?? ''}${lines[line] ?? ''}`.includes('//')) problems.push(`${at(node)}: trustedHtml() without a comment saying why`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return problems;
}

describe('html: the sources build pages only with the template', () => {
  const files = sourceFiles(SRC);

  it('has no escapeHtml anywhere: escaping happens in the template only', () => {
    const users = files.filter((file) => fs.readFileSync(file, 'utf8').includes('escapeHtml'));
    expect(users.map((file) => path.relative(SRC, file))).to.deep.equal([]);
  });

  it('builds no markup in untagged template strings or with +, and fills URL attributes through safeUrl()', () => {
    expect(files.flatMap(markupProblems)).to.deep.equal([]);
  });

  it('finds what it looks for (the scan itself works)', () => {
    const sample = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'html-scan-')), 'sample.ts');
    fs.writeFileSync(sample, "const a = `<p>${name}</p>`;\nconst b = '<li>' + name;\nconst c = html`<a href=\"${url}\">x</a>`;\nconst d = trustedHtml(x);\n");
    try {
      expect(markupProblems(sample)).to.have.length(4);
    } finally {
      fs.rmSync(path.dirname(sample), { recursive: true, force: true });
    }
  });
});

// --- Every page over HTTP ------------------------------------------------------------------------------------------

type Page = Extract<BrowserAnswer, { kind: 'page' }>;

const KNOWN_TAGS = new Set([
  'html', 'head', 'meta', 'title', 'style', 'link', 'script', 'body', 'noscript', 'main', 'nav', 'section', 'div', 'span', 'p', 'a', 'h1', 'h2', 'h3',
  'ul', 'li', 'dl', 'dt', 'dd', 'code', 'pre', 'strong', 'br', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'form', 'fieldset', 'legend', 'label',
  'input', 'button', 'textarea', 'select', 'option',
]);
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'poster', 'srcset', 'data', 'background']);
/** Elements whose content is text up to their end tag (script and style: raw text; title and textarea: escapable). */
const TEXT_ELEMENTS = new Set(['script', 'style', 'title', 'textarea']);
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;
/** One tag as the templates write it: a name, then attributes that are bare or double-quoted. */
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:="[^"]*")?)*)\s*>/y;

function decodeAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot);/gi, (_, body: string) => {
    const lower = body.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(Number(lower.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"' }[lower] ?? '';
  });
}

/** A URL a browser would run or render as a document: javascript:, vbscript:, data: (spaces, controls, tabs and case ignored). */
function isScriptUrl(url: string): boolean {
  let compact = '';
  for (const char of url) if (char.charCodeAt(0) > 0x20) compact += char;
  return /^(?:javascript|vbscript|data):/i.test(compact);
}

/**
 * Walks the page's markup tag by tag: every "<" must open a known, well-formed tag; attributes are bare or
 * double-quoted, never event handlers, and URL attributes never carry a script scheme; script elements load a file and
 * have no content; no bidi control anywhere.
 */
function expectSafeMarkup(markup: string, where: string): void {
  const fail = (message: string, index: number) => expect.fail(`${where}: ${message} at …${markup.slice(Math.max(0, index - 80), index + 120)}…`);
  const controlAt = markup.search(BIDI_CONTROLS);
  if (controlAt !== -1) fail('a bidi control character', controlAt);
  let index = markup.startsWith('<!doctype html>') ? '<!doctype html>'.length : 0;
  for (;;) {
    index = markup.indexOf('<', index);
    if (index === -1) return;
    TAG.lastIndex = index;
    const match = TAG.exec(markup);
    if (!match) return fail('a "<" that opens no well-formed tag', index);
    const [, closing = '', rawName = '', attributes = ''] = match;
    const name = rawName.toLowerCase();
    if (!KNOWN_TAGS.has(name)) fail(`an unexpected <${closing}${name}> tag`, index);
    for (const attribute of attributes.matchAll(/\s+([^\s=]+)(?:="([^"]*)")?/g)) {
      const attributeName = (attribute[1] ?? '').toLowerCase();
      if (attributeName.startsWith('on')) fail(`an event-handler attribute ${attributeName}`, index);
      if (URL_ATTRIBUTES.has(attributeName) && isScriptUrl(decodeAttribute(attribute[2] ?? ''))) fail(`a script URL in ${attributeName}`, index);
    }
    index = TAG.lastIndex;
    if (closing === '' && TEXT_ELEMENTS.has(name)) {
      const end = markup.toLowerCase().indexOf(`</${name}`, index);
      if (end === -1) return fail(`<${name}> is never closed`, index);
      const content = markup.slice(index, end);
      if (name === 'script' && (content !== '' || !/\ssrc="/.test(attributes))) fail('an inline script', index);
      if (content.includes('<')) fail(`markup inside <${name}>`, index);
      if ((name === 'script' || name === 'style') && /alert\(/.test(content)) fail(`a script inside <${name}>`, index);
      index = end;
    }
  }
}

function expectSafePage(answer: BrowserAnswer, page: string, status: number, shows: readonly string[] = []): Page {
  if (answer.kind !== 'page') throw new Error(`expected the ${page} page, got a ${answer.status} redirect to ${answer.location.href}`);
  const name = /<main\b[^>]*\bdata-page="([a-z-]+)"/.exec(answer.html)?.[1] ?? null;
  expect(name, answer.html.slice(0, 3000)).to.equal(page === 'none' ? null : page);
  expect(answer.status, `${page}: ${answer.html.slice(0, 3000)}`).to.equal(status);
  expect(answer.response.headers.get('content-type')).to.equal('text/html; charset=utf-8');
  expectSafeMarkup(answer.html, `${page} (${answer.url.pathname})`);
  for (const text of shows) expect(answer.html, `${page} should show ${text}`).to.contain(text);
  return answer;
}

/** GET with the path exactly as given: fetch would percent-encode the quotes and angle brackets. */
function rawGet(origin: string, rawPath: string, jar: CookieJar): Promise<Page> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const request = http.get({ host: url.hostname, port: url.port, path: rawPath, headers: { host: url.host, accept: 'text/html', cookie: jar.header(url) ?? '' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value);
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ kind: 'page', url: new URL(origin), status: response.statusCode ?? 0, html: body, response: new Response(null, { status: 200, headers }) });
      });
    });
    request.on('error', reject);
  });
}

/** Posts a form as a browser does: its hidden fields (as rendered), then `values` (repeated names allowed). */
async function post(jar: CookieJar, page: Page, action: string, values: Array<[string, string]>): Promise<BrowserAnswer> {
  const form = findForm(page.html, action);
  if (!form) throw new Error(`no form posting to ${action} on ${page.url.href}`);
  const hidden = [...form.fields].filter(([name]) => ['handle', 'csrf_token', 'return_to', 'version'].includes(name) && !values.some(([other]) => other === name));
  return browserRequest(jar, new URL(form.action, page.url), { method: 'POST', form: [...hidden, ...values] });
}

describe('html: every page with hostile operator data', () => {
  const trusted = useTrustedDocumentServer();

  describeEachDatabase('pages', (scratch) => {
    let server: TestServer;
    let origin: string;
    let owner: User;
    let member: User;
    let api: AdminApi;
    let memberApp: Schemas['OAuthApplicationWithSecret'];
    let vendorApp: Schemas['OAuthApplicationWithSecret'];
    let documentClientId: string;
    let refusedDocumentClientId: string;
    const siteName = `School ${HOSTILE}`;
    const siteNameShown = `School ${HOSTILE_SHOWN}`;

    async function account(name: string, local: string, roles: Role[]): Promise<User> {
      const user = await createUser(scratch().db, { email: hostileEmail(local), name, password: PASSWORD });
      for (const role of roles) await grantRole(scratch().db, server.siteA.id, user.id, role);
      return user;
    }

    async function call<B>(operation: Parameters<AdminApi['call']>[0], options: Parameters<AdminApi['call']>[1], status = 200): Promise<B> {
      const answer = await api.call<B>(operation, options);
      expect(answer.status, `${operation}: ${answer.text}`).to.equal(status);
      return answer.body;
    }

    async function patchWithEtag(get: Parameters<AdminApi['call']>[0], update: Parameters<AdminApi['call']>[0], body: unknown): Promise<void> {
      const current = await api.call(get);
      await call(update, { headers: { 'if-match': current.headers.get('etag') ?? '' }, body });
    }

    before(async function () {
      this.timeout(60000);
      server = await startTestServer(scratch());
      origin = server.siteA.origin;
      owner = await account(`Owner ${HOSTILE}`, 'owner', ['owner']);
      member = await account(`Member ${HOSTILE}`, 'member', ['student']);
      const scopes = ['school:read', 'school:write', 'courses:write', 'members:write', 'appearance:read', 'appearance:write'];
      api = await AdminApi.connect(origin, (await issueToken(scratch().db, server.siteA, { user: owner, scopes })).token);

      // Everything an operator writes through the admin API, hostile where the contract lets it be.
      await patchWithEtag('getSchool', 'updateSchool', { name: siteName, description: `About ${HOSTILE}`, contactEmail: "o'hare&{{7*7}}`@x.example" });
      await patchWithEtag('getAppearance', 'updateAppearance', {
        logoUrl: 'https://x.example/logo.png?a=1&b=%3Cscript%3E',
        coverImageUrl: "https://x.example/cover.png?'onerror='alert(1)",
        customCss: `body{background:url("javascript:alert(1)")} </script><script>alert(1)</script> {{7*7}} ${RLO}`,
      });
      await patchWithEtag('getMcpConnections', 'updateMcpConnections', { betaEnabled: true, metadataDocumentHosts: ['localhost'] });
      for (const [index, url] of SCRIPT_URLS.entries()) {
        await call('createCourse', { body: { slug: `course-${index + 1}`, title: `Course ${HOSTILE}`, description: HOSTILE, coverImageUrl: url.trim() } }, 201);
      }
      await call('createMember', { body: { email: `listed-${scratch().kind}@x.example`, name: `Listed ${HOSTILE}`, roles: ['student'] } }, 201);
      memberApp = await call('createOAuthApplication', {
        body: { name: `Member app ${HOSTILE}`, audience: 'member', confidential: true, redirectUris: ['http://127.0.0.1:8765/callback'], scopes: ['openid', 'profile', 'email', 'account:read'] },
      }, 201);
      vendorApp = await call('createOAuthApplication', {
        body: { name: `Vendor ${HOSTILE}`, audience: 'operator', confidential: false, kind: 'vendor_platform', vendorClientName: `Vendor ${HOSTILE}`, redirectUris: ['https://vendor.example/cb'], scopes: ['openid', 'courses:read'] },
      }, 201);

      // A Client ID Metadata Document names itself: its client_name is shown like an operator's application name.
      const prefix = `/${scratch().kind}`;
      documentClientId = trusted.server.url(`${prefix}/tool.json`);
      trusted.server.route(`${prefix}/tool.json`, json({ client_id: documentClientId, client_name: `Tool ${HOSTILE}`, redirect_uris: ['https://localhost/oauth/callback'], token_endpoint_auth_method: 'none' }));
      refusedDocumentClientId = trusted.server.url(`${prefix}/refused.json`);
      trusted.server.route(`${prefix}/refused.json`, json({ client_id: refusedDocumentClientId, client_name: `Refused ${HOSTILE}`, redirect_uris: [`https://elsewhere.example/${HOSTILE}`], token_endpoint_auth_method: 'none' }));
    });
    after(() => server.stop());

    function authorizeUrl(clientId: string, redirectUri: string, scope: string, extra: Record<string, string | null> = {}): URL {
      return buildAuthorizationUrl({ origin, clientId, redirectUri, scope, email: '', password: '', codeChallenge: createPkcePair().challenge, state: HOSTILE, extraParameters: extra });
    }

    it('the home page and the reference pages', async () => {
      const jar = new CookieJar();
      expectSafePage(await browserRequest(jar, new URL('/', origin)), 'none', 200, [`<h1>${siteNameShown}</h1>`, `<p>About ${HOSTILE_SHOWN}</p>`, `<title>${siteNameShown}</title>`]);
      expectSafePage(await browserRequest(jar, new URL('/docs', origin)), 'docs-index', 200, [`<strong>${siteNameShown}</strong>`]);
      expectSafePage(await browserRequest(jar, new URL('/docs/member-api', origin)), 'docs-member-api', 200, [`<strong>${siteNameShown}</strong>`]);
      expectSafePage(await browserRequest(jar, new URL('/docs/admin-api', origin)), 'none', 200, [`<a href="/">${siteNameShown}</a>`]);
      expectSafePage(await browserRequest(jar, new URL('/docs/oauth2-redirect.html', origin)), 'none', 200);
    });

    it('the authorize sign-in page (with a hostile login_hint and a refused password), consent and account switch', async () => {
      const jar = new CookieJar();
      const url = authorizeUrl(memberApp.clientId, 'http://127.0.0.1:8765/callback', 'openid profile email account:read', { login_hint: hostileEmail('hint') });
      const signIn = expectSafePage(await browserRequest(jar, url), 'sign-in', 200, [`Sign in to ${siteNameShown}</h1>`, `<strong>Member app ${HOSTILE_SHOWN}</strong>`, `value="${hostileEmailShown('hint')}"`]);
      const refused = expectSafePage(await post(jar, signIn, '/oauth/authorize/sign-in', [['email', hostileEmail('nobody')], ['password', 'wrong-password']]), 'sign-in', 400, [
        `value="${hostileEmailShown('nobody')}"`,
      ]);
      const consent = expectSafePage(await post(jar, refused, '/oauth/authorize/sign-in', [['email', member.email], ['password', PASSWORD]]), 'consent', 200, [
        `Allow <strong>Member app ${HOSTILE_SHOWN}</strong> to access your account at ${siteNameShown}?`,
        `Signed in as <strong>Member ${HOSTILE_SHOWN}</strong> (${hostileEmailShown('member')})`,
        `<title>Allow Member app ${HOSTILE_SHOWN}? · ${siteNameShown}</title>`,
      ]);
      expectSafePage(await post(jar, consent, '/oauth/authorize/switch-account', []), 'sign-in', 200, [`<strong>Member app ${HOSTILE_SHOWN}</strong>`]);

      // The member's browser session, at the admin area: the notice names them and the school.
      expectSafePage(await browserRequest(jar, new URL('/admin', origin)), 'admin-sign-in', 200);
      const again = expectSafePage(await browserRequest(jar, url), 'sign-in', 200);
      expect((await post(jar, again, '/oauth/authorize/sign-in', [['email', member.email], ['password', PASSWORD]])).kind).to.equal('page');
      expectSafePage(await browserRequest(jar, new URL('/admin', origin)), 'admin-sign-in', 200, [`You are signed in as Member ${HOSTILE_SHOWN} (${hostileEmailShown('member')})`, `member of ${siteNameShown}.`]);
    });

    it('the authorize error pages, which echo the client_id, the redirect_uri and the application name', async () => {
      const jar = new CookieJar();
      expectSafePage(await browserRequest(jar, authorizeUrl(HOSTILE, 'http://127.0.0.1:8765/callback', 'openid')), 'error', 400, [`contact ${siteNameShown}.`]);
      for (const redirectUri of [...SCRIPT_URLS, `http://127.0.0.1:8765/${HOSTILE}`]) {
        expectSafePage(await browserRequest(jar, authorizeUrl(memberApp.clientId, redirectUri, 'openid')), 'error', 400, [`is not registered for Member app ${HOSTILE_SHOWN}`]);
      }
      expectSafePage(await browserRequest(jar, authorizeUrl(refusedDocumentClientId, `https://elsewhere.example/${HOSTILE}`, 'openid')), 'error', 400);
    });

    it('the sign-out pages: the confirmation, signed out, and the error page that names the application', async () => {
      const jar = new CookieJar();
      const signIn = expectSafePage(await browserRequest(jar, authorizeUrl(memberApp.clientId, 'http://127.0.0.1:8765/callback', 'openid')), 'sign-in', 200);
      expectSafePage(await post(jar, signIn, '/oauth/authorize/sign-in', [['email', member.email], ['password', PASSWORD]]), 'consent', 200);
      const logout = new URL('/oauth/logout', origin);
      logout.searchParams.set('client_id', memberApp.clientId);
      logout.searchParams.set('state', HOSTILE);
      logout.searchParams.set('ui_locales', HOSTILE);
      const confirm = expectSafePage(await browserRequest(jar, logout), 'sign-out', 200, [
        `Sign out of ${siteNameShown}?</h1>`,
        `<strong>Member app ${HOSTILE_SHOWN}</strong> asked to sign you out.`,
        `You are signed in as <strong>${hostileEmailShown('member')}</strong>`,
      ]);
      expectSafePage(await post(jar, confirm, '/oauth/logout/confirm', [['client_id', memberApp.clientId]]), 'signed-out', 200, [`You are signed out of ${siteNameShown}</h1>`, `<strong>Member app ${HOSTILE_SHOWN}</strong>`]);
      const unknown = new URL('/oauth/logout', origin);
      unknown.searchParams.set('client_id', HOSTILE);
      expectSafePage(await browserRequest(jar, unknown), 'error', 400, [`The application ${HOSTILE_SHOWN} is not known at ${siteNameShown}.`]);
      const hint = new URL('/oauth/logout', origin);
      hint.searchParams.set('id_token_hint', HOSTILE);
      expectSafePage(await browserRequest(jar, hint), 'error', 400);
    });

    it('the pages of a vendor platform and of a Client ID Metadata Document client that names itself', async () => {
      expectSafePage(await browserRequest(new CookieJar(), authorizeUrl(vendorApp.clientId, 'https://vendor.example/cb', 'openid')), 'sign-in', 200, [`<strong>Vendor ${HOSTILE_SHOWN}</strong>`]);
      const jar = new CookieJar();
      const signIn = expectSafePage(await browserRequest(jar, authorizeUrl(documentClientId, 'https://localhost/oauth/callback', 'openid')), 'sign-in', 200, [`<strong>Tool ${HOSTILE_SHOWN}</strong>`]);
      expectSafePage(await post(jar, signIn, '/oauth/authorize/sign-in', [['email', owner.email], ['password', PASSWORD]]), 'consent', 200, [
        `Allow <strong>Tool ${HOSTILE_SHOWN}</strong>`,
        `Signed in as <strong>Owner ${HOSTILE_SHOWN}</strong>`,
      ]);
    });

    it('the admin area: sign-in, every page and form result, and its error pages', async () => {
      const jar = new CookieJar();
      const signIn = expectSafePage(await browserRequest(jar, new URL('/admin/settings', origin)), 'admin-sign-in', 200, [`admin area of ${siteNameShown}</h1>`]);
      const refused = expectSafePage(await post(jar, signIn, '/admin/sign-in', [['email', hostileEmail('nobody')], ['password', 'wrong-password']]), 'admin-sign-in', 400, [
        `value="${hostileEmailShown('nobody')}"`,
      ]);
      const student = expectSafePage(await post(jar, refused, '/admin/sign-in', [['email', member.email], ['password', PASSWORD]]), 'admin-sign-in', 403, [
        `${hostileEmailShown('member')} is not an owner, operator or staff member of ${siteNameShown}.`,
      ]);
      const signedIn = await post(jar, student, '/admin/sign-in', [['email', owner.email], ['password', PASSWORD]]);
      expect(signedIn.kind === 'redirect' && signedIn.location.pathname).to.equal('/admin/settings');

      // The metadata-document client is stored once the authorize endpoint has resolved it.
      await browserRequest(new CookieJar(), authorizeUrl(documentClientId, 'https://localhost/oauth/callback', 'openid'));
      const ownerShown = `Owner ${HOSTILE_SHOWN}`;
      expectSafePage(await browserRequest(jar, new URL('/admin', origin)), 'admin-home', 200, [`<h1>${siteNameShown}</h1>`, `<strong>${ownerShown}</strong>`, `<span class="who">${ownerShown}`]);
      expectSafePage(await browserRequest(jar, new URL('/admin/settings', origin)), 'admin-settings', 200, [`<p class="site">${siteNameShown} · Admin</p>`]);
      const list = expectSafePage(await browserRequest(jar, new URL('/admin/developers/oauth-applications', origin)), 'admin-applications', 200, [
        `>Member app ${HOSTILE_SHOWN}</a>`,
        `>Vendor ${HOSTILE_SHOWN}</a>`,
        `>Tool ${HOSTILE_SHOWN}</a>`,
      ]);
      expect(list.html).to.contain(`<code>${documentClientId}</code>`);
      for (const clientId of [memberApp.clientId, vendorApp.clientId, documentClientId]) {
        expectSafePage(await browserRequest(jar, new URL(`/admin/developers/oauth-applications/${encodeURIComponent(clientId)}`, origin)), 'admin-application', 200);
      }
      expectSafePage(await browserRequest(jar, new URL(`/admin/developers/oauth-applications/${encodeURIComponent(vendorApp.clientId)}`, origin)), 'admin-application', 200, [
        `(registration name <code>Vendor ${HOSTILE_SHOWN}</code>)`,
      ]);

      // The create form: what was typed comes back escaped with each problem, then the application is created.
      const form = expectSafePage(await browserRequest(jar, new URL('/admin/developers/oauth-applications/new', origin)), 'admin-application-new', 200);
      const typed: Array<[string, string]> = [['name', `Typed ${HOSTILE}`], ['audience', 'member'], ['confidential', 'on'], ['scopes', 'openid'], ['scopes', HOSTILE]];
      const invalid = expectSafePage(await post(jar, form, '/admin/developers/oauth-applications', [...typed, ['redirect_uris', [...SCRIPT_URLS, HOSTILE].join('\n')]]), 'admin-application-new', 400, [
        `value="Typed ${HOSTILE_SHOWN}"`,
        `Redirect URIs: ${HOSTILE_SHOWN} must be an absolute URI`,
      ]);
      const hostileRedirect = `http://127.0.0.1:8765/cb?q=${HOSTILE}`;
      const created = expectSafePage(await post(jar, invalid, '/admin/developers/oauth-applications', [...typed.slice(0, 4), ['redirect_uris', hostileRedirect]]), 'admin-application-created', 201, [
        `<h1>Typed ${HOSTILE_SHOWN} was created</h1>`,
        `<code>http://127.0.0.1:8765/cb?q=${HOSTILE_SHOWN}</code>`,
      ]);
      const createdId = /<code class="client-id">([^<]+)<\/code>/.exec(created.html)?.[1] ?? '';
      const page = expectSafePage(await browserRequest(jar, new URL(`/admin/developers/oauth-applications/${encodeURIComponent(createdId)}`, origin)), 'admin-application', 200, [`<h1>Typed ${HOSTILE_SHOWN}</h1>`]);
      expectSafePage(await post(jar, page, `/admin/developers/oauth-applications/${encodeURIComponent(createdId)}/rotate-secret`, []), 'admin-application-secret', 200, [
        `New client secret for Typed ${HOSTILE_SHOWN}</h1>`,
      ]);

      // Error pages: an unknown application, an unknown path, a method not allowed; each echoes the request.
      expectSafePage(await browserRequest(jar, new URL(`/admin/developers/oauth-applications/${encodeURIComponent(HOSTILE)}`, origin)), 'admin-error', 404);
      expectSafePage(await browserRequest(jar, new URL(`/admin/${encodeURIComponent(HOSTILE)}`, origin)), 'admin-error', 404);
      expectSafePage(await rawGet(origin, '/admin/"><script>alert(1)</script>', jar), 'admin-error', 404, ['/admin/&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;']);
      const notAllowed = await fetch(new URL('/admin/settings', origin), { method: 'DELETE', headers: { cookie: jar.header(origin) ?? '' }, redirect: 'manual' });
      expectSafePage({ kind: 'page', url: new URL('/admin/settings', origin), status: notAllowed.status, html: await notAllowed.text(), response: notAllowed }, 'admin-error', 405);
    });

    it('the connected-apps pages: sign-in, the list with a hostile application and member, a refused disconnect, and the admin pages of an application grants and of a member', async () => {
      const client: { id: number } = await scratch().db('oauth_clients').where({ site_id: server.siteA.id, client_id: memberApp.clientId }).first('id');
      const { pair } = await insertPair(scratch().db, { grantId: newGrantId(), siteId: server.siteA.id, clientRef: client.id, userId: member.id, scopes: ['openid', 'account:read'], resource: origin, schoolId: server.siteA.id, authTime: new Date() });
      const jar = new CookieJar();
      const signIn = expectSafePage(await browserRequest(jar, new URL('/connected-apps', origin)), 'connected-apps-sign-in', 200, [`Sign in to ${siteNameShown}</h1>`]);
      const refused = expectSafePage(await post(jar, signIn, '/connected-apps/sign-in', [['email', hostileEmail('nobody')], ['password', 'wrong-password']]), 'connected-apps-sign-in', 400, [hostileEmailShown('nobody')]);
      const signedIn = await post(jar, refused, '/connected-apps/sign-in', [['email', member.email], ['password', PASSWORD]]);
      expect(signedIn.kind === 'redirect' && signedIn.location.pathname).to.equal('/connected-apps');
      const list = expectSafePage(await browserRequest(jar, new URL('/connected-apps', origin)), 'connected-apps', 200, [
        `<h2>Member app ${HOSTILE_SHOWN}</h2>`,
        `Signed in as <strong>Member ${HOSTILE_SHOWN}</strong> (${hostileEmailShown('member')})`,
        `<p class="site">${siteNameShown}</p>`,
      ]);
      expectSafePage(await post(jar, list, '/connected-apps/disconnect', [['grant_id', HOSTILE]]), 'connected-apps-error', 404);
      const adminJar = new CookieJar();
      const grantsPath = `/admin/developers/oauth-applications/${encodeURIComponent(memberApp.clientId)}/grants`;
      const adminSignIn = expectSafePage(await browserRequest(adminJar, new URL(grantsPath, origin)), 'admin-sign-in', 200);
      const adminSignedIn = await post(adminJar, adminSignIn, '/admin/sign-in', [['email', owner.email], ['password', PASSWORD]]);
      expect(adminSignedIn.kind === 'redirect' && adminSignedIn.location.pathname).to.equal(grantsPath);
      const memberPath = `/admin/developers/connected-apps/${member.id}`;
      expectSafePage(await browserRequest(adminJar, new URL(grantsPath, origin)), 'admin-application-grants', 200, [
        `<h1>Member app ${HOSTILE_SHOWN}: connected members</h1>`,
        `<td><a href="${memberPath}">Member ${HOSTILE_SHOWN} (${hostileEmailShown('member')})</a></td>`,
        `data-grant="${pair.grantId}"`,
      ]);
      // Members' connected apps: the lookup (a hostile email typed back), and the member's page.
      expectSafePage(await browserRequest(adminJar, new URL('/admin/developers/connected-apps', origin)), 'admin-member-lookup', 200);
      const lookup = new URL('/admin/developers/connected-apps', origin);
      lookup.searchParams.set('email', hostileEmail('nobody'));
      expectSafePage(await browserRequest(adminJar, lookup), 'admin-member-lookup', 404, [`value="${hostileEmailShown('nobody')}"`, `has the email ${hostileEmailShown('nobody')}.`]);
      lookup.searchParams.set('email', member.email);
      const found = await browserRequest(adminJar, lookup);
      expect(found.kind === 'redirect' && found.location.pathname).to.equal(memberPath);
      expectSafePage(await browserRequest(adminJar, new URL(memberPath, origin)), 'admin-member-grants', 200, [
        `<h1>Member ${HOSTILE_SHOWN}: connected apps</h1>`,
        `<p>${hostileEmailShown('member')}</p>`,
        `>Member app ${HOSTILE_SHOWN}</a>`,
        `data-grant="${pair.grantId}"`,
      ]);
      expectSafePage(await browserRequest(adminJar, new URL(`/admin/developers/connected-apps/${encodeURIComponent(HOSTILE)}`, origin)), 'admin-error', 404);
    });
  });
});
