/**
 * `node --import tsx --import ./test/support/trace-modules.ts …`: appends the URL of every module the process loads
 * through the ES module loader (our sources, and each package's entry point) to the file named by
 * SCHOOLGATE_TRACE_MODULES, one a line. The hook runs on the loader's thread, so it writes to the file synchronously.
 */
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  if (process.env.SCHOOLGATE_TRACE_MODULES && url.startsWith('file:')) appendFileSync(process.env.SCHOOLGATE_TRACE_MODULES, url + '\\n');
  return nextLoad(url, context);
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`);
