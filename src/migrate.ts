// The migration step (`node dist/src/migrate.js` in production, `npm run db:migrate` from the sources):
// applies the application's and BullMQ's migrations, then exits. Processes with MIGRATE_ON_START (the
// default outside NODE_ENV=production) also migrate at start, serialised by an advisory lock; the others
// refuse to start while a migration is pending (docs/deployment.md).
import { loadConfig, ConfigError } from './config/load.js';
import { createLogger } from './logger.js';
import { openRuntime } from './runtime.js';

try {
  // The migration step asks for the database settings only (DATABASE_URL, REDIS_URL, ...): src/config/load.ts.
  const config = loadConfig(process.env, { scope: 'migrate' });
  const rt = await openRuntime(config, createLogger(config.logLevel, { role: 'migrate' }), { migrate: true });
  await rt.close();
  process.stdout.write(`migrations are up to date (${config.deployment} deployment)\n`);
} catch (err) {
  process.stderr.write(`db:migrate failed: ${err instanceof ConfigError ? err.message : (err as Error).stack}\n`);
  process.exit(1);
}
