// ESLint (flat config) for every TypeScript and JavaScript file mpii holds; `npm run lint`
// checks, `npm run format` fixes what can be fixed (scripts/lint.mjs, docs/testing.md).
// @eslint/js's and typescript-eslint's recommended rules, plus the type-aware rules that catch
// the bugs of a program that spawns and awaits processes: a promise nobody awaits (its rejection
// is lost, or the process exits before it settles), a promise where a boolean or a void callback
// is expected, `await` on something that is not a promise.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // generated (src/gen/profile-emit.ts writes it), build output, installed packages, local Nodes
    ignores: ['dist/', 'node_modules/', '.venv-mpich/', '.node*/', 'mpii-out/', 'src/profile-file/format.gen.ts'],
  },
  {
    // a disable comment no rule needs any more is an error: it would hide the next real finding
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test runs what these calls return itself: the tests' promises are not lost
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // `const { TOOLS: _, ...rest } = env` leaves a key out: the rule's own option for that
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    // the JavaScript that runs as is, on Node (TypeScript knows the TypeScript files' globals)
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', URL: 'readonly' },
    },
  },
  {
    // the example tool the add-a-tool test copies into a copy of mpii: its imports resolve only
    // there, so it is linted without type information
    files: ['test/tools/hello/**'],
    ...tseslint.configs.disableTypeChecked,
  },
);
