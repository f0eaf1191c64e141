// The service refuses to start without the native secp256k1 addon: a real service process whose module
// loader cannot find `secp256k1/bindings` (a preload makes its require throw, as a missing or broken
// prebuild would) exits with a fatal log line that names the addon, instead of serving on a slow curve.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startServiceProcess } from '../../testing/service-process.js';

const dir = mkdtempSync(join(tmpdir(), 'no-secp256k1-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('exits at start-up, naming the missing addon', async () => {
  const preload = join(dir, 'no-addon.cjs');
  writeFileSync(
    preload,
    `const Module = require('node:module');
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === 'secp256k1/bindings') throw new Error("Cannot find module 'secp256k1/bindings' (simulated)");
  return load.call(this, request, ...rest);
};`,
  );
  const started = startServiceProcess({ env: { NODE_OPTIONS: `--require ${preload}`, DATA_DIR: join(dir, 'data') } });
  await expect(started).rejects.toThrow(
    /process exited \(1\)[\s\S]*native secp256k1 addon[\s\S]*did not load: Cannot find module 'secp256k1\/bindings' \(simulated\)/,
  );
});
