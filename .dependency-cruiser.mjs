// The TypeScript side's layers (docs/architecture.md, "The TypeScript layers"), as
// dependency-cruiser rules over src/ and preload/tools/: `npm run lint` checks them
// (scripts/lint.mjs), and test/ts-layering.unit.test.ts runs them on the sources and on made-up
// trees that prove each rule fires. No rule has exceptions: a module that needs one is in the
// wrong layer. Type-only imports count (tsPreCompilationDeps): a type is an edge too.
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'no import cycle, in the core or a tool: the modules form layers',
      severity: 'error',
      from: { path: '^(src|preload/tools)/' },
      to: { circular: true },
    },
    {
      name: 'tool-imports-only-the-api',
      comment: "a tool's report modules import from mpii only its published API, src/tool-api/index.ts",
      severity: 'error',
      from: { path: '^preload/tools/[^/]+/' },
      to: { path: '^src/', pathNot: '^src/tool-api/index\\.ts$' },
    },
    {
      name: 'tool-imports-no-other-tool',
      comment: 'a tool imports nothing of another tool: what two tools share belongs in src/tool-api',
      severity: 'error',
      from: { path: '^preload/tools/([^/]+)/' },
      to: { path: '^preload/tools/', pathNot: '^preload/tools/$1/' },
    },
    {
      name: 'core-imports-no-tool',
      comment: "the core reaches the tools' report modules only through their generated registry (preload/tools/reports.gen.ts)",
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^preload/tools/', pathNot: '^preload/tools/reports\\.gen\\.ts$' },
    },
    {
      name: 'registry-has-one-reader',
      comment: 'the registry is read in one place, src/report/tools.ts (the report asks the tools through it)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/report/tools\\.ts$' },
      to: { path: '^preload/tools/reports\\.gen\\.ts$' },
    },
    {
      name: 'api-imports-no-command',
      comment: "the tools' API stands below the commands: it imports neither the CLI nor the registry",
      severity: 'error',
      from: { path: '^src/tool-api/' },
      to: { path: '^(src/cli/|src/report/tools\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
