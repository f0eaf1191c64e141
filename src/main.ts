// Composition root. `npm start` runs API, WebSocket gateway and workers in one process;
// `npm run start:api` (this file with --role=api) and `npm run start:workers` run them apart.
import { runProcess, type Role } from './process.js';

const arg = process.argv.find((a) => a.startsWith('--role='))?.slice('--role='.length) ?? 'all';
if (arg !== 'all' && arg !== 'api' && arg !== 'workers') {
  process.stderr.write(`unknown --role=${arg}; use all, api or workers\n`);
  process.exit(64);
}
await runProcess(arg as Role);
