import type { FieldProblem } from '../shared/errors.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname);
}

/**
 * A registrable redirect URI: absolute, no fragment (RFC 6749 3.1.2), HTTPS or loopback HTTP,
 * or a native app's private-use scheme with a dot in it (RFC 8252 7.1). Matching at /oauth/authorize is exact.
 */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.hash !== '' || value.includes('#')) return 'must not contain a fragment';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname) ? null : 'http is allowed only for loopback hosts; use https';
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol) ? null : 'must use https, loopback http, or a reverse-domain private-use scheme';
}

export function redirectUriProblems(uris: readonly string[], pointer: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (uris.length === 0) problems.push({ pointer, message: 'at least one redirect URI is required' });
  uris.forEach((uri, index) => {
    const message = redirectUriProblem(uri);
    if (message) problems.push({ pointer: `${pointer}/${index}`, message });
  });
  return problems;
}
