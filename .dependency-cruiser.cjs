/**
 * The import rules of the monorepo (`npm run lint`), the direction of docs/architecture.md:
 *
 *     cli -> engine, client, server (optional), schemas
 *     engine -> schemas          (never client, server or undici: it reaches the API through its port)
 *     server -> schemas          (never engine or client)
 *     client -> schemas          (never server or engine)
 *     schemas -> nothing of ours
 *
 * and, everywhere: no import cycle, no import of a package the importing package does not
 * declare, nothing that does not resolve.
 */
const source = (pkg) => `^${pkg}/src/`;
const layer = (name, from, forbidden) => ({
  name,
  severity: 'error',
  comment: `${from} must not import ${forbidden.join(', ')} (docs/architecture.md, "Packages")`,
  from: { path: source(from), pathNot: '\\.test\\.ts$' },
  to: { path: forbidden.map((p) => `^(${p}/|node_modules/${p.startsWith('packages/') ? '@gatehouse/' + p.slice('packages/'.length) : p}/)`).join('|') },
});

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'an import cycle', from: {}, to: { circular: true } },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
    {
      name: 'no-undeclared-dependency',
      severity: 'error',
      comment: 'a package imported but not declared in the importing package.json (unit tests use the root devDependencies: vitest)',
      from: { pathNot: '^(schemas|packages/[^/]+)/src/(.*\\.test\\.ts|testing/.*)$' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'no-dev-dependency-in-sources',
      severity: 'error',
      comment: 'a devDependency imported by shipped code',
      from: { path: '^(schemas|packages/[^/]+)/src/', pathNot: '(\\.test\\.ts|\\.test-data\\.ts|/testing/)' },
      to: { dependencyTypes: ['npm-dev'] },
    },
    layer('schemas-is-the-bottom', 'schemas', ['packages/engine', 'packages/server', 'packages/client', 'packages/cli']),
    layer('engine-only-schemas', 'packages/engine', ['packages/server', 'packages/client', 'packages/cli', 'undici']),
    layer('server-only-schemas', 'packages/server', ['packages/engine', 'packages/client', 'packages/cli']),
    layer('client-only-schemas', 'packages/client', ['packages/server', 'packages/engine', 'packages/cli']),
  ],
  options: {
    // Workspace packages resolve to their built dist/ (their package.json exports): seen, not followed.
    doNotFollow: { path: ['node_modules', '^(schemas|packages/[^/]+)/(dist|dist-bundle)/'] },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    tsConfig: { fileName: 'tsconfig.tests.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
