// The zero-setup path a new user takes: embedded PGlite, no Privy settings, a token minted by
// `npm run dev:token` against the development key in DATA_DIR, then a protected route.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniquePrefix } from '../testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../testing/service-process.js';
import { createSession, createWalletSession, getPreferences, getWalletNonce, logout } from '../../generated/openapi/sdk.gen.js';
import { randomWallet, signSiwe } from '../testing/identity.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { embeddedDataDir } from '../testing/embedded-template.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let dataDir: string;
let svc: ServiceProcess;

function devToken(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/dev-token.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, ...env },
    encoding: 'utf8',
  });
}

beforeAll(async () => {
  dataDir = embeddedDataDir('crfq-devid-');
  svc = await startServiceProcess({
    env: {
      NODE_ENV: 'development',
      DEMO_DATA: 'false', // identity only: no demo contests or maker to seed (PGlite seeding takes seconds)
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      QUEUE_PREFIX: uniquePrefix('devid'),
      SIWE_DOMAIN: 'localhost:3000',
    },
  });
});

afterAll(async () => {
  await svc?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('development identity (embedded deployment)', () => {
  it('creates the development key pair on first start and says how to mint a token', async () => {
    const line = await svc.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('development identity'));
    expect(line).toMatchObject({ level: 'info', privy_app_id: 'crfq-dev-app', key_created: true });
    expect(line.msg).toContain('npm run -s dev:token -- --wallet');
    expect(readFileSync(join(dataDir, 'dev-privy', 'public.pem'), 'utf8')).toContain('BEGIN PUBLIC KEY');
    expect(existsSync(join(dataDir, 'dev-privy', 'private.pem'))).toBe(true);
  });

  it('a token from npm run dev:token opens a session that reads the preferences', async () => {
    const wallet = randomWallet();
    const minted = devToken(['--wallet', wallet.address, '--twitter', 'devuser', '--ttl', '600']);
    expect(minted.status, minted.stderr).toBe(0);
    const privyToken = minted.stdout.trim();
    expect(privyToken.split('.')).toHaveLength(3);
    const session = await send(createSession({ client: sdkClient(svc.baseUrl), body: { privy_token: privyToken } }));
    expect(session.status).toBe(200);
    expect(session.data?.address).toBe(wallet.address);
    const prefs = await send(getPreferences({ client: sdkClient(svc.baseUrl, session.data?.session_token) }));
    expect(prefs.status).toBe(200);
    expect(prefs.data).toMatchObject({ user_id: session.data?.user_id, x_handle: 'devuser', address: wallet.address });
    // The same wallet always maps to the same development subject, hence the same user.
    const again = await send(
      createSession({ client: sdkClient(svc.baseUrl), body: { privy_token: devToken(['--wallet', wallet.address]).stdout.trim() } }),
    );
    expect(again.data?.user_id).toBe(session.data?.user_id);
    expect(svc.rawOutput.join('\n')).not.toContain(privyToken);
  });

  it('wallet sign-in and logout work on PGlite too', async () => {
    const nonce = (await send(getWalletNonce({ client: sdkClient(svc.baseUrl) }))).data!.nonce;
    const res = await send(
      createWalletSession({ client: sdkClient(svc.baseUrl), body: await signSiwe(randomWallet(), { domain: 'localhost:3000', nonce }) }),
    );
    const client = sdkClient(svc.baseUrl, res.data?.session_token);
    expect(res.status).toBe(200);
    expect((await send(logout({ client }))).status).toBe(204);
    expect((await send(getPreferences({ client }))).error?.code).toBe('INVALID_SESSION');
  });

  it('dev:token refuses to run in production and rejects bad arguments', () => {
    const prod = devToken(['--wallet', randomWallet().address], { NODE_ENV: 'production' });
    expect(prod.status).toBe(1);
    expect(prod.stdout).toBe('');
    expect(prod.stderr).toMatch(/refusing to run with NODE_ENV=production/);
    const bad = devToken(['--wallet', '0x1234']);
    expect(bad.status).toBe(64);
    expect(bad.stderr).toMatch(/--wallet must be an Ethereum address/);
    const custom = devToken(['--wallet', randomWallet().address], {
      PRIVY_APP_ID: 'real-app',
      PRIVY_VERIFICATION_KEY: readFileSync(join(dataDir, 'dev-privy', 'public.pem'), 'utf8'),
    });
    expect(custom.status).toBe(1);
    expect(custom.stderr).toMatch(/PRIVY_APP_ID is set/);
  });
});
