// Type-aware lint: the rules that matter most here catch unawaited promises,
// because the engine writes audit rows and delivers notifications in the background.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'data/**',
      'bench/node_modules/**',
      'bench/results/**',
      'dist/**',
      'test/package/consumer/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/only-throw-error': 'error',
    },
  },
  {
    // Browser code of the web UI: untrusted text must never be parsed as markup.
    files: ['src/web/client/**/*.ts'],
    languageOptions: { globals: globals.browser },
    rules: {
      'no-restricted-properties': [
        'error',
        {
          property: 'innerHTML',
          message: 'Build DOM nodes and use textContent: untrusted text must never be parsed as markup.',
        },
        {
          property: 'outerHTML',
          message: 'Build DOM nodes and use textContent: untrusted text must never be parsed as markup.',
        },
        {
          property: 'insertAdjacentHTML',
          message: 'Build DOM nodes and use textContent: untrusted text must never be parsed as markup.',
        },
        { object: 'document', property: 'write', message: 'Build DOM nodes instead.' },
        { property: 'createContextualFragment', message: 'Build DOM nodes and use textContent instead.' },
      ],
      'no-restricted-globals': ['error', { name: 'eval', message: 'No eval: the CSP forbids it.' }],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: globals.node } },
);
