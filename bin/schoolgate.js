#!/usr/bin/env node
// The operator CLI; the TypeScript is compiled to dist/ by `npm install` (prepare) or `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write('schoolgate: the CLI is not built yet; run `npm run build` in the project folder\n');
  process.exit(1);
}
await import(entry);
