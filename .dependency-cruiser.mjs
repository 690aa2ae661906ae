// The floors of src/ and what each may import; `npm run lint` runs this through dependency-cruiser
// (docs/architecture.md draws the same floors). A module may import its own floor and the floors below it, never a
// floor above; no import cycle anywhere. The few imports still allowed to run upward are listed in
// `upwardExceptions`, each with its reason.

/** Bottom first. A folder sits on exactly one floor; the files directly in src/ are placed one by one. */
export const floors = [
  {
    name: 'foundation',
    description: 'Errors, logging, randomness, time, money, paths, configuration and the variant profile',
    paths: ['^src/shared/', '^src/config/', '^src/variant[.]ts$'],
  },
  {
    name: 'data access',
    description: 'The database connection, migrations, transactions, table modules and the metrics registry',
    paths: ['^src/db/', '^src/data/', '^src/metrics/'],
  },
  {
    name: 'domains',
    description: 'What the school does, one folder a concern, without HTTP',
    paths: [
      '^src/accounts/', '^src/sites/', '^src/clients/', '^src/grants/', '^src/keys/',
      '^src/member/', '^src/catalog/', '^src/scheduling/', '^src/commerce/', '^src/courses/', '^src/people/',
      '^src/content/', '^src/analytics/', '^src/storage/', '^src/import/',
    ],
  },
  {
    name: 'web',
    description: 'Koa plumbing every interface shares: request state, errors, forms, cookies, sessions, health, the services bag',
    paths: ['^src/http/', '^src/services[.]ts$'],
  },
  {
    name: 'interfaces',
    description: 'How the outside reaches the service: OAuth, GraphQL, MCP, admin API and area, pages, docs, jobs',
    paths: [
      '^src/oauth/', '^src/graphql/', '^src/mcp/', '^src/admin/', '^src/pages/', '^src/docs/', '^src/agent-guide/',
      '^src/deprecations/', '^src/usage/', '^src/housekeeping/', '^src/uploads/',
    ],
  },
  {
    name: 'entry points',
    description: 'What starts the process or a tool: the server, the CLI, the contract tools, the demo seed',
    paths: [
      '^src/main[.]ts$', '^src/server[.]ts$', '^src/app[.]ts$', '^src/heap-growth[.]ts$', '^src/production-mode[.]ts$',
      '^src/cli/', '^src/contract/', '^src/demo/', '^src/telemetry/',
    ],
  },
];

/**
 * Imports allowed to run up the floors, each until the code it needs moves down: `{ from, to, reason }` with both
 * paths from the project root. Keep this list short (test/layering.test.ts allows three at most).
 */
export const upwardExceptions = [];

const either = (patterns) => patterns.join('|');
const exactly = (file) => `^${file.replace(/[.]/g, '[.]')}$`;

function floorRules(exceptions) {
  const rules = [];
  floors.forEach((floor, index) => {
    const above = floors.slice(index + 1).flatMap((higher) => higher.paths);
    if (above.length === 0) return;
    const excepted = exceptions.filter((exception) => floor.paths.some((path) => new RegExp(path).test(exception.from)));
    const rule = (from, pathNot) => ({
      name: 'import-from-a-higher-floor',
      severity: 'error',
      comment: `The ${floor.name} floor imports only itself and the floors below it (docs/architecture.md)`,
      from,
      to: pathNot ? { path: either(above), pathNot } : { path: either(above) },
    });
    const exceptedFiles = [...new Set(excepted.map((exception) => exception.from))];
    rules.push(rule(exceptedFiles.length ? { path: either(floor.paths), pathNot: either(exceptedFiles.map(exactly)) } : { path: either(floor.paths) }));
    for (const file of exceptedFiles) {
      const allowed = excepted.filter((exception) => exception.from === file).map((exception) => exactly(exception.to));
      rules.push(rule({ path: exactly(file) }, either(allowed)));
    }
  });
  return rules;
}

/** The rules for these floors with the given upward exceptions (test/layering.test.ts checks a made-up one). */
export function layeringConfig(exceptions) {
  return {
    forbidden: [
      ...floorRules(exceptions),
      {
        name: 'no-circular',
        severity: 'error',
        comment: 'An import cycle ties modules that should stand alone; move the shared part down',
        from: {},
        to: { circular: true },
      },
      {
        name: 'module-on-no-floor',
        severity: 'error',
        comment: 'Every module of src/ sits on a floor: add its folder to one in .dependency-cruiser.mjs and docs/architecture.md',
        from: { path: '^src/', pathNot: either(floors.flatMap((floor) => floor.paths)) },
        to: {},
      },
    ],
    options: {
      doNotFollow: { path: 'node_modules' },
      exclude: { path: '^(node_modules|dist|generated)/' },
      tsConfig: { fileName: 'tsconfig.json' },
      // Type-only imports count: a type from a higher floor couples a module to it as much as a value does.
      tsPreCompilationDeps: true,
      enhancedResolveOptions: { extensions: ['.ts', '.js'] },
      cache: false,
    },
  };
}

export default layeringConfig(upwardExceptions);
