// vitest's global setup (vitest.config.ts), once per vitest process before any test file: the migrated template
// database (src/testing/template-db.ts) and the services' build (src/testing/test-build.ts).
import { ensureTemplateDatabase } from './template-db.js';
import { ensureTestBuild } from './test-build.js';

export default async function setup(): Promise<void> {
  const [, build] = await Promise.all([ensureTemplateDatabase(), ensureTestBuild()]);
  // Read by startServiceProcess in the test workers, which inherit this environment.
  if (build) process.env.TEST_SERVICE_BUILD_DIR = build;
  else delete process.env.TEST_SERVICE_BUILD_DIR;
}
