// `npm run db:migrate`: applies the application's and BullMQ's migrations, then exits. Every process also
// migrates at start, serialised by an advisory lock, so running this first is optional.
import { loadConfig, ConfigError } from './config.js';
import { createLogger } from './logger.js';
import { openRuntime } from './runtime.js';

try {
  const config = loadConfig();
  const rt = await openRuntime(config, createLogger(config.logLevel, { role: 'migrate' }));
  await rt.close();
  process.stdout.write(`migrations are up to date (${config.deployment} deployment)\n`);
} catch (err) {
  process.stderr.write(`db:migrate failed: ${err instanceof ConfigError ? err.message : (err as Error).stack}\n`);
  process.exit(1);
}
