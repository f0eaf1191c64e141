// `npm run build`: the production build in dist/, run with plain node (docs/deployment.md):
//   node dist/src/migrate.js               the migration step
//   node dist/src/main.js --role=api       an API process (or --role=workers, or no flag for both)
//   node dist/scripts/ledger-check.js      the ledger check
//   node dist/scripts/prices-verify.js <market_id>...   re-checks windows' resolutions at their price sources
// tsc compiles what those entry points import (tsconfig.build.json; `.ts` specifiers are rewritten to
// `.js`); then every file the code reads at run time beside its own sources is copied next to the output:
// the served documents (spec/*.yaml), the generated AsyncAPI validators (plain JavaScript), and every
// non-TypeScript file under src/ and workers/ (the docs portal's scripts and styles). dist/ keeps importing packages from the node_modules of the checkout it sits in.
// tsconfig.build.json empties `paths`: the `@contest-rfq/sdk` alias (tests and examples only) resolves
// nowhere at run time, so a service file importing it fails this build instead of the deployment.
import { spawnSync } from 'node:child_process';
import { cpSync, globSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// `--out <dir>` (relative to the checkout) writes elsewhere: the tests' build (src/testing/test-build.ts) goes to
// .test-build/<hash> so that it never races this default dist/, which src/production-build.int.test.ts rebuilds.
const outArg = process.argv.indexOf('--out');
const OUT = join(ROOT, outArg > 0 && process.argv[outArg + 1] ? process.argv[outArg + 1]! : 'dist');

rmSync(OUT, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', OUT], { stdio: 'inherit' });
if (compiled.status !== 0) {
  process.stderr.write('build: tsc failed\n');
  process.exit(1);
}

const assets = [
  ...globSync(['spec/*.yaml', 'generated/**/*.js'], { cwd: ROOT }),
  ...globSync(['src/**/*', 'workers/**/*'], { cwd: ROOT, withFileTypes: true })
    .filter((d) => d.isFile() && !/\.(ts|md|sql)$/.test(d.name))
    .map((d) => join(d.parentPath, d.name).slice(ROOT.length)),
].filter((f) => !f.startsWith('src/testing/') && !f.includes('/fixtures/'));
for (const file of assets) {
  mkdirSync(dirname(join(OUT, file)), { recursive: true });
  cpSync(join(ROOT, file), join(OUT, file));
}
// The OpenAPI document parsed once here: a process reads spec/openapi.json beside the YAML when it is there
// (src/http/spec.ts), which saves parsing 200 KB of YAML (about half a second of CPU) at every start.
writeFileSync(join(OUT, 'spec/openapi.json'), JSON.stringify(parse(readFileSync(join(ROOT, 'spec/openapi.yaml'), 'utf8'))));
// The output is ES modules wherever it is copied to.
writeFileSync(join(OUT, 'package.json'), `${JSON.stringify({ type: 'module', private: true }, null, 2)}\n`);
process.stdout.write(`build: dist/ written (tsc, and ${assets.length} files copied: ${assets.join(', ')})\n`);
