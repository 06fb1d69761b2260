// ESLint: the recommended rules of ESLint and typescript-eslint over every package's sources,
// tests and scripts. Formatting is Prettier's job (`npm run format`), imports' direction
// dependency-cruiser's (.dependency-cruiser.cjs), unused files and exports knip's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/',
      '**/dist-bundle/',
      '**/node_modules/',
      'packages/engine/src/load/validators/',
      'schemas/json/',
      'coverage/',
      '.gatehouse/',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_name` marks what is deliberately unused (a destructured field left out).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-duplicate-imports': 'off',
      eqeqeq: ['error', 'always'],
      // The output sanitizers, and the tests that check them, match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read parsed YAML and JSON answers loosely, and may require CommonJS helpers.
    files: ['**/*.test.ts', 'test/**/*.ts', '**/testing/**/*.ts', '**/*.cjs'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
);
