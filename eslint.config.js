// ESLint, type-aware (typescript-eslint's recommendedTypeChecked); formatting is Prettier's alone.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'fixtures/', 'bench/.targets.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', '*.cjs', '*.mjs', 'vitest.config.ts', 'vitest.power.config.ts', 'scripts/*.mjs', 'bench/*.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.node, BENCHGATE_VERSION: 'readonly' },
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read JSON reports and /proc as untyped data to assert on their shape; a type for each would only restate the assertion.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Fakes implement async interfaces (a comment API, a benchmark process) with answers at hand.
      '@typescript-eslint/require-await': 'off',
      // The escaping tests look for control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  {
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs', '*.js', '*.cjs'],
    // Plain JavaScript: there are no types to be unsafe about, so the type-aware checks only report `any` everywhere.
    ...tseslint.configs.disableTypeChecked,
  },
  prettier,
);
