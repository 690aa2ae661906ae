/**
 * Requests node:http would refuse to send, written byte by byte to a socket: broken request lines, raw non-UTF-8 and
 * NUL bytes, headers without colons or with folded lines, conflicting Content-Length and Transfer-Encoding, bad
 * chunk framing, absolute-form and asterisk targets, HTTP versions that do not exist, pipelined requests. Every
 * request is complete (the server never waits for bytes that will not come) and asks for Connection: close.
 */
import fc from 'fast-check';
import type { FuzzFixtures } from '../support/fixtures.js';
import type { Family, FuzzRequest } from '../support/http-client.js';
import { invalidUtf8 } from '../support/hostile.js';
import { GRAPHQL_PATH } from './graphql.js';

const INTERFACES: Record<string, Family> = {
  '/api/oauth/token': 'token',
  '/api/oauth/revoke': 'revocation',
  '/api/oauth/register': 'registration',
  '/api/oauth/userinfo': 'userinfo',
  '/oauth/authorize': 'authorize',
  [GRAPHQL_PATH]: 'graphql',
  '/mcp': 'mcp',
  '/api/admin/v1/school': 'admin',
  '/api/admin/v1/courses': 'admin',
};
const PATHS = Object.keys(INTERFACES);

export function transportRequests(fx: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const method = fc.oneof({ arbitrary: fc.constantFrom('POST', 'GET'), weight: 6 }, { arbitrary: fc.constantFrom('post', 'G ET', 'GET\u0000', 'PRI', 'CONNECT', 'M-SEARCH', 'X'.repeat(100), ''), weight: 2 });
  const path = fc.constantFrom(...PATHS);
  const targetStyle = fc.constantFrom('plain', 'plain', 'plain', 'raw-bytes', 'nul', 'space', 'absolute', 'asterisk', 'overlong', 'backslash', 'fragment', 'empty');
  const version = fc.oneof({ arbitrary: fc.constant('HTTP/1.1'), weight: 8 }, { arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'HTTP/0.9', 'http/1.1', 'HTTP/1.10', ''), weight: 2 });
  const hostStyle = fc.constantFrom('right', 'right', 'right', 'missing', 'twice', 'huge', 'nul', 'other-site');
  const headerTrick = fc.constantFrom(
    'none',
    'none',
    'no-colon',
    'obs-fold',
    'space-before-colon',
    'nul-value',
    'bare-cr',
    'bad-name',
    'high-bytes-value',
    'cl-and-te',
    'two-cl',
    'negative-cl',
    'te-gzip-chunked',
    'te-identity',
    'bad-chunk-size',
    'chunk-extension',
    'trailer',
    'overlong-header',
    'many-headers',
    'expect-continue',
    'pipelined',
    'lf-only',
  );
  const bodyKind = fc.constantFrom('form', 'json', 'bytes', 'none');
  return fc.record({ method, path, targetStyle, version, hostStyle, headerTrick, bodyKind, bytes: invalidUtf8 }).map(({ method: verb, path: route, targetStyle: style, version: http, hostStyle: host, headerTrick: trick, bodyKind: kind, bytes }) => {
    let target = route;
    switch (style) {
      case 'raw-bytes':
        target = `${route}?q=\u00ff\u00fe\u00c0\u00af`;
        break;
      case 'nul':
        target = `${route}\u0000x`;
        break;
      case 'space':
        target = `${route}?a=b c`;
        break;
      case 'absolute':
        target = `${fx.origin}${route}`;
        break;
      case 'asterisk':
        target = '*';
        break;
      case 'overlong':
        target = `${route}?a=${'x'.repeat(20_000)}`;
        break;
      case 'backslash':
        target = route.replace(/\//g, '\\');
        break;
      case 'fragment':
        target = `${route}#frag`;
        break;
      case 'empty':
        target = '';
        break;
      default:
        break;
    }
    let body: Buffer = Buffer.alloc(0);
    if (kind === 'form') body = Buffer.from('grant_type=authorization_code&code=x&client_id=y');
    else if (kind === 'json') body = Buffer.from('{"query":"{ viewer { name } }","jsonrpc":"2.0","id":1,"method":"tools/list"}');
    else if (kind === 'bytes') body = Buffer.concat([Buffer.from('a='), bytes]);
    const lines: Buffer[] = [];
    const line = (text: string) => lines.push(Buffer.from(`${text}\r\n`, 'latin1'));
    line(`${verb} ${target}${http === '' ? '' : ` ${http}`}`);
    if (host === 'right') line(`Host: ${fx.siteHost}`);
    else if (host === 'twice') {
      line(`Host: ${fx.siteHost}`);
      line(`Host: ${fx.otherSiteHost}`);
    } else if (host === 'huge') line(`Host: ${'h'.repeat(20_000)}`);
    else if (host === 'nul') line(`Host: local\u0000host`);
    else if (host === 'other-site') line(`Host: ${fx.otherSiteHost}`);
    line(`Content-Type: ${kind === 'json' ? 'application/json' : 'application/x-www-form-urlencoded'}`);
    line('Accept: application/json, text/event-stream');
    line('Connection: close');
    let chunked = false;
    let lengthWritten = false;
    switch (trick) {
      case 'no-colon':
        line('X-No-Colon value');
        break;
      case 'obs-fold':
        line('X-Folded: first');
        line(' continued');
        break;
      case 'space-before-colon':
        line('Content-Type : text/plain');
        break;
      case 'nul-value':
        line('X-Nul: a\u0000b');
        break;
      case 'bare-cr':
        line('X-Bare: a\rInjected: b');
        break;
      case 'bad-name':
        line('X Bad(Name): 1');
        break;
      case 'high-bytes-value':
        lines.push(Buffer.concat([Buffer.from('X-Bytes: '), Buffer.from([0xc0, 0xaf, 0xff, 0xfe]), Buffer.from('\r\n')]));
        break;
      case 'cl-and-te':
        line(`Content-Length: ${body.length}`);
        line('Transfer-Encoding: chunked');
        chunked = true;
        lengthWritten = true;
        break;
      case 'two-cl':
        line(`Content-Length: ${body.length}`);
        line(`Content-Length: ${body.length + 1}`);
        lengthWritten = true;
        break;
      case 'negative-cl':
        line('Content-Length: -1');
        lengthWritten = true;
        break;
      case 'te-gzip-chunked':
        line('Transfer-Encoding: gzip, chunked');
        chunked = true;
        lengthWritten = true;
        break;
      case 'te-identity':
        line('Transfer-Encoding: identity');
        line(`Content-Length: ${body.length}`);
        lengthWritten = true;
        break;
      case 'bad-chunk-size':
      case 'chunk-extension':
      case 'trailer':
        line('Transfer-Encoding: chunked');
        chunked = true;
        lengthWritten = true;
        break;
      case 'overlong-header':
        line(`X-Long: ${'y'.repeat(20_000)}`);
        break;
      case 'many-headers':
        for (let i = 0; i < 2100; i += 1) line(`X-H${i}: ${i}`);
        break;
      case 'expect-continue':
        line('Expect: 100-continue');
        break;
      default:
        break;
    }
    if (!lengthWritten) line(`Content-Length: ${body.length}`);
    let framed: Buffer;
    if (!chunked) framed = body;
    else if (trick === 'bad-chunk-size') framed = Buffer.concat([Buffer.from('zz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')]);
    else if (trick === 'chunk-extension') framed = Buffer.concat([Buffer.from(`${body.length.toString(16)};ext="${'e'.repeat(100)}"\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
    else if (trick === 'trailer') framed = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\nX-Trailer: 1\r\n\r\n')]);
    else framed = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
    let raw = Buffer.concat([...lines, Buffer.from('\r\n'), framed]);
    if (trick === 'lf-only') raw = Buffer.from(raw.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
    if (trick === 'pipelined') {
      const second = Buffer.from(`GET /api/oauth/userinfo HTTP/1.1\r\nHost: ${fx.siteHost}\r\nAuthorization: Bearer x\r\nConnection: close\r\n\r\n`);
      raw = Buffer.concat([Buffer.from(raw.toString('latin1').replace('Connection: close\r\n', ''), 'latin1'), second]);
    }
    return {
      family: 'transport',
      // One route for the family: a fault of the HTTP layer shows on every path, and is one failure.
      route: 'raw HTTP/1.1 request',
      label: `${verb} ${route}, target ${style}, ${http || 'no version'}, host ${host}, ${trick}, ${kind} body`,
      method: verb,
      target,
      headers: [],
      raw,
      writes: 'never',
      // Whatever the app answers is in the format of the interface the path belongs to (a mangled target aside).
      interface: style === 'plain' || style === 'absolute' || style === 'fragment' || style === 'raw-bytes' || style === 'space' ? INTERFACES[route] : 'transport',
      foreignHost: host !== 'right',
      // Whatever Node's parser refuses it answers itself, bare; what it lets through gets the app's answer.
      breaksFraming: true,
    };
  });
}
