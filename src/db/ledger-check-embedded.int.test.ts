// `npm run ledger:check` on the embedded deployment (no DATABASE_URL): refused with a clear reason while
// the service holds DATA_DIR, and checks the books of DATA_DIR once the service has stopped.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { createDeposit, createSession } from '../../generated/openapi/sdk.gen.js';
import { randomWallet } from '../testing/identity.js';
import { sdkClient, sent } from '../testing/sdk-client.js';
import { embeddedDataDir } from '../testing/embedded-template.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let dataDir: string;
let svc: ServiceProcess;

const run = (script: string, args: string[] = []) =>
  spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 60_000,
  });

beforeAll(async () => {
  dataDir = embeddedDataDir('crfq-ledger-');
  svc = await startServiceProcess({ env: { NODE_ENV: 'development', DEMO_DATA: 'false', DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '0' } });
});
afterAll(async () => {
  await svc?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run ledger:check on the embedded database', () => {
  it('refuses while the service runs, naming the reason and what to do', async () => {
    const minted = run('scripts/dev-token.ts', ['--wallet', randomWallet().address]);
    expect(minted.status, minted.stderr).toBe(0);
    const session = await sent(createSession({ client: sdkClient(svc.baseUrl), body: { privy_token: minted.stdout.trim() } }));
    expect(session.status).toBe(200);
    const deposit = await sent(
      createDeposit({
        client: sdkClient(svc.baseUrl, session.data!.session_token),
        body: { amount_micros: 5_000_000, idempotency_key: randomUUID() },
      }),
    );
    expect([200, 202]).toContain(deposit.status);

    const refused = run('scripts/ledger-check.ts');
    expect(refused.status).toBe(75);
    expect(refused.stderr).toContain(`in use by process ${svc.proc.pid}`);
    expect(refused.stderr).toContain('stop the service');
  });

  it('checks the books of DATA_DIR once the service has stopped', async () => {
    expect(await svc.stop()).toBe(0);
    const checked = run('scripts/ledger-check.ts');
    expect(checked.status, checked.stderr).toBe(0);
    const report = JSON.parse(checked.stdout) as { transactions: number; entries: number; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.transactions).toBeGreaterThanOrEqual(1);
    expect(report.entries).toBeGreaterThanOrEqual(2);
  });

  it('says so when DATA_DIR holds no database', () => {
    const empty = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ledger-check.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: join(dataDir, 'nothing-here') },
      encoding: 'utf8',
    });
    expect(empty.status).toBe(66);
    expect(empty.stderr).toContain('no embedded database');
  });
});
