import fs from 'node:fs';
import path from 'node:path';
import { currentMcpTools, mcpToolsText } from './published-tools.js';

/**
 * A step of `npm run codegen`: writes the MCP tools of both variants to `mcp-tools.json` in GENERATED_DIR (default
 * generated/), so that .ci/codegen-check catches a tool edited without regenerating it.
 */
const dir = process.env.GENERATED_DIR || 'generated';
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'mcp-tools.json'), mcpToolsText(currentMcpTools()));
