// docs/generate-a-client.md's command cannot rot: the block between `<!-- command:generate-client -->` and
// `<!-- /command -->` runs here with bash, as written, in an empty temporary folder (no node_modules, no
// package.json above it that npx could borrow a TypeScript from) against the document a running service
// serves. npx may reach the npm registry; npm_config_prefer_offline lets it use the versions already in the
// npm cache without asking the registry again when they are there.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../../testing/service-process.js';
import { embeddedDataDir } from '../../testing/embedded-template.js';

const DOC = fileURLToPath(new URL('../../../docs/generate-a-client.md', import.meta.url));
let dataDir: string;
let svc: ServiceProcess;

/** The shell text of the marked block. */
function command(): string {
  const m = /<!-- command:generate-client[^>]*-->\n```sh\n([\s\S]*?)```\n<!-- \/command -->/.exec(readFileSync(DOC, 'utf8'));
  if (!m) throw new Error('docs/generate-a-client.md has no <!-- command:generate-client --> block');
  return m[1]!;
}

function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
  });
}

const NETWORK_ENV =
  /^(https?_proxy|no_proxy|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|npm_config_(cafile|ca|registry|proxy|https_proxy|globalconfig|userconfig))$/i;
function networkEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => NETWORK_ENV.test(e[0]) && e[1] !== undefined));
}

beforeAll(async () => {
  dataDir = embeddedDataDir('crfq-genclient-');
  svc = await startServiceProcess({ env: { NODE_ENV: 'development', DATA_DIR: dataDir, DEMO_DATA: 'false' } });
});
afterAll(async () => {
  await svc?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('docs/generate-a-client.md', () => {
  it('its command generates a client in an empty folder from the served document', { timeout: 300_000 }, async () => {
    const empty = mkdtempSync(join(tmpdir(), 'crfq-client-'));
    try {
      const run = await bash(command(), empty, {
        // This Node first (the generator needs 22.18 or newer), as a partner's own Node would be.
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        HOME: process.env.HOME ?? '',
        // The machine's way out to the registry (its proxy and extra CA certificates), as a partner's shell has it.
        ...networkEnv(),
        CRFQ_URL: svc.baseUrl,
        npm_config_prefer_offline: 'true',
        npm_config_update_notifier: 'false',
      });
      expect(run.status, run.out).toBe(0);
      const sdk = readFileSync(join(empty, 'crfq-client', 'sdk.gen.ts'), 'utf8');
      for (const op of ['getWalletNonce', 'listAuditEntries', 'getCurrentMarket', 'createWithdrawal'])
        expect(sdk).toContain(`export const ${op} =`);
      expect(readFileSync(join(empty, 'crfq-client', 'client.gen.ts'), 'utf8')).toContain(`baseUrl: '${svc.baseUrl}'`);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
