import { DEMO_CLIENTS, DEMO_LOGINS } from '../../src/demo/demo-school.js';
import { walkAuthorizationPages } from '../support/authorize-flow.js';
import { readResults, runSuite, type Check } from './conformance-cli.js';

/**
 * The suite's authorization-server scenarios against the school, as the demo member app: the suite prints an
 * authorization URL and waits on `http://127.0.0.1:<callbackPort>/callback`; we open that URL and pass our sign-in
 * and consent pages as Mia, the demo member, the way a browser would, and the pages send the code to the suite's
 * callback. The suite then redeems it at the token endpoint itself.
 */
export async function runAuthorizationScenarios(
  origin: string,
  revision: string,
  options: { callbackPort: number; outputDir: string; timeoutMs: number },
): Promise<{ results: Map<string, Check[]>; problems: string[] }> {
  const problems: string[] = [];
  const browsing: Array<Promise<void>> = [];
  const args = ['authorization', '--url', origin, '--client-id', DEMO_CLIENTS.member.clientId, '--resource', origin, '-p', String(options.callbackPort), '--spec-version', revision, '-o', options.outputDir];
  const run = await runSuite(args, {
    timeoutMs: options.timeoutMs,
    onLine: (line) => {
      const url = authorizationUrlIn(line.trim(), origin);
      if (url) browsing.push(signInAndApprove(url, origin).catch((error: unknown) => void problems.push(`driving the authorization pages failed: ${error instanceof Error ? error.message : String(error)}`)));
    },
  });
  await Promise.all(browsing);
  if (run.timedOut) problems.push(`the authorization scenarios did not finish within ${options.timeoutMs / 1000} s`);
  if (browsing.length === 0) problems.push('the suite printed no authorization URL of this school to open');
  const results = readResults(options.outputDir, 'authorization-server-');
  if (results.size === 0) problems.push(`the suite saved no result (exit code ${String(run.exitCode)}):\n${run.output}`);
  return { results, problems };
}

function authorizationUrlIn(line: string, origin: string): URL | null {
  if (!line.startsWith(origin)) return null;
  try {
    const url = new URL(line);
    return url.searchParams.get('response_type') === 'code' ? url : null;
  } catch {
    return null;
  }
}

/** Signs Mia in, approves, and follows the redirect to the suite's callback so it receives the code. */
async function signInAndApprove(url: URL, origin: string): Promise<void> {
  const redirect = await walkAuthorizationPages(url, { origin, email: DEMO_LOGINS.member.email, password: DEMO_LOGINS.member.password });
  if (redirect.error !== null) throw new Error(`the school answered error=${redirect.error} (${redirect.errorDescription ?? 'no description'})`);
  const callback = await fetch(redirect.location, { redirect: 'manual' });
  await callback.arrayBuffer();
  if (!callback.ok) throw new Error(`the suite's callback ${redirect.location.origin}${redirect.location.pathname} answered HTTP ${callback.status}`);
}
