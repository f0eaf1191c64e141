// The development operator token of the embedded default: printed at start-up, accepted by the operator
// API, stable across restarts; and never printed or accepted in production, even with the file present.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { startTestService } from '../testing/test-service.js';
import { createMarketMaker } from '../../generated/openapi/sdk.gen.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { embeddedDataDir } from '../testing/embedded-template.js';

let dataDir: string;
beforeAll(() => {
  dataDir = embeddedDataDir('crfq-devop-');
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const embedded = () => startServiceProcess({ env: { NODE_ENV: 'development', DEMO_DATA: 'false', DATA_DIR: dataDir } });
const tokenLine = (svc: ServiceProcess) =>
  svc.logs.find((l) => typeof l.msg === 'string' && l.msg.startsWith('development operator token'));
const register = (baseUrl: string, token: string) =>
  send(
    createMarketMaker({
      client: sdkClient(baseUrl, token),
      body: { wallet_address: privateKeyToAccount(generatePrivateKey()).address, name: 'Dev MM' },
    }),
  );

describe('development operator token', () => {
  let devToken: string;

  // Two embedded starts, the first migrating a fresh PGlite: 48 s measured on a busy shared 2-core box, so more than the default 60 s budget.
  it(
    'embedded development start: printed, written to DATA_DIR, accepted by the operator API; a restart keeps it',
    { timeout: 180_000 },
    async () => {
      const first = await embedded();
      try {
        const line = await first.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('development operator token'), 5_000);
        devToken = readFileSync(join(dataDir, 'dev-operator-token'), 'utf8').trim();
        expect(devToken).toMatch(/^dev-operator-[A-Za-z0-9_-]{32}$/);
        expect(line).toMatchObject({ token_created: true });
        expect(line.msg).toContain(devToken);
        expect(line.msg).toContain('export OPERATOR_TOKEN=$(cat ');
        expect((await register(first.baseUrl, devToken)).status).toBe(201);
        expect(first.logs.some((l) => typeof l.msg === 'string' && l.msg.startsWith('operator API disabled'))).toBe(false);
      } finally {
        expect(await first.stop()).toBe(0);
      }
      const second = await embedded();
      try {
        expect(tokenLine(second)).toMatchObject({ token_created: false });
        expect(tokenLine(second)!.msg).toContain(devToken);
        expect((await register(second.baseUrl, devToken)).status).toBe(201);
      } finally {
        await second.stop();
      }
    },
  );

  it('production never prints or accepts it, though the file is in its DATA_DIR', async () => {
    expect(devToken).toBeDefined();
    const prod = await startTestService('devopprod', {
      NODE_ENV: 'production',
      ALLOW_DEMO_SETTLEMENT: 'true',
      ALLOW_DEMO_PRICES: 'true',
      DATA_DIR: dataDir,
    });
    try {
      expect(tokenLine(prod.svc)).toBeUndefined();
      expect(prod.svc.rawOutput.join('\n')).not.toContain(devToken);
      const refused = await register(prod.svc.baseUrl, devToken);
      expect(refused.status).toBe(401);
      expect(refused.error?.code).toBe('INVALID_SESSION');
      expect((await register(prod.svc.baseUrl, prod.operatorToken)).status).toBe(201); // its own OPERATOR_TOKEN works
    } finally {
      await prod.stop();
    }
  });

  it('an OPERATOR_TOKEN that is set always wins (no development token)', async () => {
    const svc = await startServiceProcess({
      env: { NODE_ENV: 'development', DATA_DIR: dataDir, OPERATOR_TOKEN: 'explicit-operator-token-123' },
    });
    try {
      expect(tokenLine(svc)).toBeUndefined();
      expect((await register(svc.baseUrl, devToken)).status).toBe(401);
      expect((await register(svc.baseUrl, 'explicit-operator-token-123')).status).toBe(201);
    } finally {
      await svc.stop();
    }
  });
});
