// Lint: typescript-eslint's recommended rules on top of ESLint's, React's hook rules for the TUI
// (exhaustive-deps as an error: a stale closure in a key handler is a real bug), and Prettier's
// formatting is checked by `npm run lint` beside this. Then the layers of src/ (lint/layers.js),
// judged on the file each import resolves to, no import cycles, and the promise rules of
// typescript-eslint's type-checked set (an unawaited promise's rejection goes nowhere). Type-checking
// itself is `tsc`.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { MATRIX } from './lint/layers.js';

const ROOT = import.meta.dirname;
const isFile = (name) => /\.tsx?$/.test(name);
const globOf = (name) => (isFile(name) ? `src/${name}` : `src/${name}/**/*.{ts,tsx}`);

/**
 * One config object per row of the matrix: everything in src/ but what the row allows is refused
 * (import-x/no-restricted-paths, on resolved paths); src/sim refuses packages too, and the views
 * the `redis` client. A file's own row, later, replaces its layer's (ESLint takes a rule's last
 * options).
 */
const layerConfigs = MATRIX.map(({ files, may, why, redisPackage }) => {
  const target = files.map((f) => `src/${f}`);
  // Nothing of the repository but what the row allows of src/ (no test/, bench/ or scripts/ file).
  const zones = [{ target, from: '.', except: ['./node_modules', ...may.map((m) => `./src/${m}`)], message: why }];
  // Packages by a glob on the resolved path, wherever node_modules lives (a worktree may link it).
  if (files.includes('sim')) zones.push({ target, from: ['/**/node_modules/**'], message: why });
  if (redisPackage === false)
    zones.push({ target, from: ['/**/node_modules/redis/**', '/**/node_modules/@redis/**'], message: why });
  return {
    files: files.map(globOf),
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones }] },
  };
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.vitest-report.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'Buffer',
          'URL',
          'setTimeout',
          'clearTimeout',
          'setImmediate',
          'setInterval',
          'clearInterval',
        ].map((g) => [g, 'readonly']),
      ),
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-control-regex': 'off',
    },
  },
  {
    // bin/ is CommonJS (bin/package.json): what Node runs first starts faster than an ES module.
    files: ['bin/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', __filename: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/tui/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    rules: { ...reactHooks.configs.flat.recommended.rules, 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      // no-cycle reads the modules an import leads to: with typescript-eslint's parser, as ESLint does.
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.mjs', '.json', '.node'],
          conditionNames: ['lqsim-source', 'import', 'default'],
        }),
      ],
    },
    rules: {
      // A cycle makes a module's exports undefined while the other is still loading, and hides
      // which layer is below: none in src/ (type-only imports are erased, so not counted).
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // The layers can only judge a module they can resolve: a dynamic import names it literally, and a
      // type comes from an `import type` (not `typeof import('...')` inline, which they do not see).
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportExpression[source.type!="Literal"]',
          message: 'import() takes a string literal, so the layer rules (lint/layers.js) can judge what it loads',
        },
        {
          selector: 'TSImportType',
          message: 'a type from another module is imported at the top (`import type`), so the layer rules can judge it',
        },
      ],
    },
  },
  ...layerConfigs,
  {
    files: ['src/**/*.{ts,tsx}', 'bench/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: ROOT } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
);
