// ESLint 10 flat config: typescript-eslint's recommended rules without type information (fast: no program
// is built; `tsc --noEmit` does the type checking). The `eslint-disable-line` comments in the code name
// these rules. A rule turned off here says why.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      'generated/**', // written by `npm run generate`
      'dist/**', // written by `npm run build`
      'node_modules/**',
      '.data/**',
      'coverage/**',
      'playwright-report/**',
      'test-results/**',
      'contract-tests/.coverage/**',
      'sdk/dist/**',
      '**/*.js', // the only hand-written JS is this file; generated validators are JS
    ],
  },
  tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_`-prefixed names are deliberately unused (a destructured field dropped, a callback's first argument).
      // `interface DB extends Inferred {}` (src/db/schema.ts) names an inferred type so compiler messages say `DB`.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
);
