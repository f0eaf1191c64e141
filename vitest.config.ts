import { defineConfig } from 'vitest/config';
import DurationSequencer from './src/testing/vitest-sequencer.js';

// Tiers (docs/testing.md): unit tests beside the code; medium tests (*.db.test.ts): repositories and rules
// in-process on a real migrated PostgreSQL database; integration tests (*.int.test.ts) on real PostgreSQL,
// Redis and service processes; contract tests that check every response against the spec.
// e2e/ holds Playwright's browser tests (npm run test:e2e): no project may collect them.
const notVitest = ['e2e/**', 'node_modules/**'];
// `@contest-rfq/sdk` resolves to sdk/src through tsconfig.json's `paths` (tsc and tsx read the same entry).
const resolve = { tsconfigPaths: true };
// Removes the Redis keys of every queue prefix a test file used, after the file (src/testing/vitest-setup.ts).
const queueCleanup = './src/testing/vitest-setup.ts';
// Once per vitest process: the migrated template database test databases are cloned from, and the services'
// build they start from instead of tsx (src/testing/vitest-global-setup.ts; issue 40).
const globalSetup = ['./src/testing/vitest-global-setup.ts'];
// CONTRACT_BASE_URL=https://staging.example.com CONTRACT_OPERATOR_TOKEN=... npx vitest run --project contract
// checks another deployment with the files that need no settings of their own and no database access.
// Files at once (issue 40). Vitest runs every project's files in one pool when their maxWorkers agree; a project
// without its own would default to cores - 1 (1 here) and run its files one by one after all the others. The
// service-starting files mostly wait (on their processes, a chain, polling), so more files run at once than the
// CI machine has cores (docs/testing.md, "Time"). TEST_WORKERS overrides.
const WORKERS = Number(process.env.TEST_WORKERS ?? 4);
const REMOTE_CONTRACT_FILES = ['contract-tests/operations.test.ts', 'contract-tests/documents.test.ts', 'contract-tests/errors.test.ts'];
export default defineConfig({
  test: {
    // The longest files start first, across projects (src/testing/vitest-sequencer.ts): the run's tail stays short.
    sequence: { sequencer: DurationSequencer },
    projects: [
      {
        resolve,
        test: {
          name: 'unit',
          maxWorkers: WORKERS,
          include: ['src/**/*.test.ts', 'workers/**/*.test.ts', 'scripts/**/*.test.ts', 'sdk/src/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/*.db.test.ts', ...notVitest],
        },
      },
      {
        resolve,
        test: {
          name: 'db',
          globalSetup,
          include: ['src/**/*.db.test.ts'],
          exclude: notVitest,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          maxWorkers: WORKERS,
        },
      },
      {
        resolve,
        test: {
          name: 'integration',
          globalSetup,
          include: ['src/**/*.int.test.ts', 'workers/**/*.int.test.ts', 'sdk/test/**/*.int.test.ts'],
          exclude: notVitest,
          setupFiles: [queueCleanup],
          testTimeout: 60_000,
          hookTimeout: 90_000,
          fileParallelism: true,
          maxWorkers: WORKERS,
        },
      },
      {
        resolve,
        test: {
          name: 'contract',
          globalSetup,
          include: process.env.CONTRACT_BASE_URL ? REMOTE_CONTRACT_FILES : ['contract-tests/**/*.test.ts'],
          exclude: notVitest,
          setupFiles: [queueCleanup],
          testTimeout: 60_000,
          hookTimeout: 90_000,
          maxWorkers: WORKERS,
        },
      },
    ],
  },
});
