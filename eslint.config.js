// Lint: typescript-eslint's recommended rules on top of ESLint's, React's hook rules for the TUI
// (exhaustive-deps as an error: a stale closure in a key handler is a real bug), and Prettier's
// formatting is checked by `npm run lint` beside this, and the layers below. Type-checking itself
// is `tsc`.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** A layer may not import these (ESLint's own no-restricted-imports, by import specifier). */
const layer = (files, patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });
const SIM = 'src/sim is the Laravel model: it imports only src/sim (and node: builtins); the scenario layer imports it';
const NO_REDIS = 'views and traces never touch Redis: output, trace and tui read timelines (src/redis is the I/O edge)';

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
    files: ['src/tui/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    rules: { ...reactHooks.configs.flat.recommended.rules, 'react-hooks/exhaustive-deps': 'error' },
  },
  // README "How it works": sim imports only sim; output, trace and tui never import redis.
  layer(['src/sim/*.ts'], [{ regex: '^(?!node:|\\./)', message: SIM }]),
  layer(['src/sim/*/**/*.ts'], [{ regex: '^(?!node:|\\./|\\.\\./(?!\\.\\./))', message: SIM }]),
  layer(
    ['src/output/**/*.{ts,tsx}', 'src/trace/**/*.{ts,tsx}', 'src/tui/**/*.{ts,tsx}'],
    [{ regex: '(^|/)redis(/|$)', message: NO_REDIS }],
  ),
);
