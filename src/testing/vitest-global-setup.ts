// vitest's global setup (vitest.config.ts), once per project of a vitest process before its test files: the
// migrated template database (src/testing/template-db.ts) and, for the projects that start services (not the db
// project: its tests run in-process), the services' build (src/testing/test-build.ts). Both are reused once made.
import { ensureTemplateDatabase } from './template-db.js';
import { ensureTestBuild } from './test-build.js';

export default async function setup(project?: { name?: string }): Promise<void> {
  const needsBuild = project?.name !== 'db';
  const [, build] = await Promise.all([ensureTemplateDatabase(), needsBuild ? ensureTestBuild() : undefined]);
  // Read by startServiceProcess in the test workers, which inherit this environment.
  if (build) process.env.TEST_SERVICE_BUILD_DIR = build;
}
