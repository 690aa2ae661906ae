import https from 'node:https';
import { guardedLookup, literalAddressProblem } from '../metadata-document/address-policy.js';
import { trustedCertificates } from '../metadata-document/extra-ca.js';

/** A client's logout endpoint answers within 5 s or the attempt failed (it is retried later). */
export const DELIVERY_TIMEOUT_MS = 5000;

export interface PostOptions {
  /** The host is on the site's metadata-document allowlist: its addresses may be private (an intranet client). */
  allowPrivateAddresses: boolean;
  timeoutMs?: number;
}

export type PostOutcome = { delivered: true; status: number } | { delivered: false; error: string };

/**
 * POSTs `logout_token=…` as application/x-www-form-urlencoded (OIDC Back-Channel Logout 1.0 2.5), under the outbound
 * policy of Client ID Metadata Documents: https only, the same SSRF guard on every address the host resolves to
 * (private addresses only for an allowlisted host), no redirects followed, one deadline for the whole exchange.
 * 200 and 204 are success (2.8); anything else is a failed attempt. Never throws.
 */
export function postLogoutToken(uri: string, logoutToken: string, options: PostOptions): Promise<PostOutcome> {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return Promise.resolve({ delivered: false, error: 'the backchannel_logout_uri is not a URL' });
  }
  if (url.protocol !== 'https:') return Promise.resolve({ delivered: false, error: 'the backchannel_logout_uri is not https' });
  const literal = literalAddressProblem(url.hostname, options.allowPrivateAddresses);
  if (literal) return Promise.resolve({ delivered: false, error: literal.message });
  let ca: string[] | undefined;
  try {
    ca = trustedCertificates();
  } catch (error) {
    return Promise.resolve({ delivered: false, error: error instanceof Error ? error.message : String(error) });
  }
  const body = new URLSearchParams({ logout_token: logoutToken }).toString();
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;

  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      finish({ delivered: false, error: `no answer within ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    const request = https.request(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Content-Length': Buffer.byteLength(body),
        'User-Agent': 'schoolgate (OpenID Connect Back-Channel Logout)',
        'Cache-Control': 'no-store',
      },
      lookup: guardedLookup(options.allowPrivateAddresses),
      // A fresh connection per attempt: a pooled socket would skip the guarded lookup.
      agent: false,
      ...(ca ? { ca } : {}),
    });
    request.on('error', (error) => finish({ delivered: false, error: error.message }));
    request.on('response', (response) => {
      // The body is of no interest (2.8 only names the status); drain it so the socket closes.
      response.resume();
      const status = response.statusCode ?? 0;
      if (status === 200 || status === 204) finish({ delivered: true, status });
      else finish({ delivered: false, error: status >= 300 && status < 400 ? `answered a redirect (HTTP ${status}); redirects are not followed` : `answered HTTP ${status}` });
      request.destroy();
    });
    request.end(body);
  });
}
