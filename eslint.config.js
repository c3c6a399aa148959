// ESLint (`npm run lint`): the recommended rules of ESLint and typescript-eslint (syntax only, not type-aware, so
// a lint run stays in seconds), plus the rules of hooks for the console.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['**/node_modules/', '**/dist/', 'test-artifacts/', 'data/', 'packages/web/public/']),
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // A leading underscore marks a name kept unused on purpose (a loop variable, a positional parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
        },
      ],
      // `cond ? a() : b()` and `x && f()` as statements are house style for short either-or calls.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
    },
  },
  {
    // better-sqlite3's line depends on the running Node.js (line 13 segfaults on Node 20, line 12 aborts on 24.19+):
    // every import goes through the loader that picks it.
    ignores: ['packages/server/src/db/sqlite-driver.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'better-sqlite3',
              allowTypeImports: true,
              message: 'load it with loadSqliteDriver() (packages/server/src/db/sqlite-driver.ts)',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/test/**/*.{ts,tsx}'],
    rules: {
      // Tests build and read untyped wire JSON (request bodies, upstream answers) and check it field by field.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['packages/web/**/*.{ts,tsx}', 'test/browser/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['packages/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    // The rules of hooks only: the rest of the plugin's recommended set runs the React Compiler over every component
    // (70% of the lint time) for a compiler the console's build does not use, and mostly flags deliberate patterns
    // (modals resetting their fields from an effect when opened, cells comparing times with the clock at render).
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
);
