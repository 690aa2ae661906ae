import { createRequire } from 'node:module';
import path from 'node:path';
import { introspectionFromSchema } from 'graphql';
import { buildMemberSchema } from '../graphql/schema.js';
import type { VariantProfile } from '../variant.js';
import type { AssetFile } from './assets.js';
import { EXPLORER_INIT_SCRIPT, EXPLORER_PAGE_STYLE } from './explorer-init.js';

export const EXPLORER_FILES = {
  react: 'react.production.min.js',
  reactDom: 'react-dom.production.min.js',
  graphiqlScript: 'graphiql.min.js',
  graphiqlStyle: 'graphiql.min.css',
  script: 'member-api-explorer.js',
  style: 'member-api-explorer.css',
  /** The member schema as an introspection result, which GraphiQL reads instead of asking the endpoint (no token needed). */
  schema: 'member-api-schema.json',
} as const;

const JAVASCRIPT = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * The folder of one package of the explorer's browser files, resolved from @schoolgate/graphiql-assets (the local
 * package that pins GraphiQL 3 and the React 18 it runs on) through each package's own package.json: wherever npm
 * placed it, and without asking for a file the package's exports map does not list.
 */
function browserPackageFolder(name: 'graphiql' | 'react' | 'react-dom'): string {
  const require = createRequire(import.meta.url);
  const assetsPackage = require.resolve('@schoolgate/graphiql-assets/package.json');
  return path.dirname(createRequire(assetsPackage).resolve(`${name}/package.json`));
}

/**
 * The member API explorer's files under /docs/assets (no CDN): GraphiQL's bundle and stylesheet, React and ReactDOM
 * (UMD builds, the globals GraphiQL's bundle expects), the page's start-up script and style, and this deployment's
 * member schema as an introspection result.
 */
export function explorerAssetFiles(variant: VariantProfile): ReadonlyMap<string, AssetFile> {
  const graphiql = browserPackageFolder('graphiql');
  const introspection = introspectionFromSchema(buildMemberSchema(variant).schema, { specifiedByUrl: true, directiveIsRepeatable: true });
  return new Map<string, AssetFile>([
    [EXPLORER_FILES.react, { file: path.join(browserPackageFolder('react'), 'umd/react.production.min.js'), type: JAVASCRIPT }],
    [EXPLORER_FILES.reactDom, { file: path.join(browserPackageFolder('react-dom'), 'umd/react-dom.production.min.js'), type: JAVASCRIPT }],
    [EXPLORER_FILES.graphiqlScript, { file: path.join(graphiql, 'graphiql.min.js'), type: JAVASCRIPT }],
    [EXPLORER_FILES.graphiqlStyle, { file: path.join(graphiql, 'graphiql.min.css'), type: CSS }],
    [EXPLORER_FILES.script, { body: Buffer.from(EXPLORER_INIT_SCRIPT, 'utf8'), type: JAVASCRIPT }],
    [EXPLORER_FILES.style, { body: Buffer.from(EXPLORER_PAGE_STYLE, 'utf8'), type: CSS }],
    [EXPLORER_FILES.schema, { body: Buffer.from(JSON.stringify(introspection), 'utf8'), type: 'application/json; charset=utf-8' }],
  ]);
}
