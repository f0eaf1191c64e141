// The living demo (issue 16): an embedded development start seeds demo contests once, with entries, a
// resolved contest with a leaderboard and payouts; a restart seeds nothing more; DEMO_DATA=false starts empty.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { fundWallet } from '../testing/rfq-trade.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess } from '../testing/service-process.js';
import { getContest, getContestLeaderboard, listContests } from '../../generated/openapi/sdk.gen.js';
import { sdkClient, send } from '../testing/sdk-client.js';
import { demoSeedAllowed } from '../domain/demo/seed.js';

const dirs: string[] = [];
const newDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'crfq-demo-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const lobby = async (baseUrl: string) => {
  const res = await send(listContests({ client: sdkClient(baseUrl), query: { limit: 100 } }));
  expect(res.status).toBe(200);
  return res.data?.contests ?? [];
};
const seededLine = (l: Record<string, unknown>) => typeof l.msg === 'string' && l.msg.startsWith('demo data seeded');

describe('demo data on the embedded development default', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = newDir();
  });

  it('a first start seeds three demo contests with entries; the resolved one has ranks and payouts', async () => {
    const svc = await startServiceProcess({ env: { NODE_ENV: 'development', DATA_DIR: dataDir } });
    try {
      expect(svc.logs.some(seededLine)).toBe(true);
      const rows = await lobby(svc.baseUrl);
      expect(rows).toHaveLength(3);
      for (const r of rows) {
        expect(r.title.startsWith('Demo: ')).toBe(true);
        expect(r.entries_filled).toBe(6);
      }
      expect(rows.map((r) => r.status).sort()).toEqual(['open', 'open', 'resolved']);
      const resolved = rows.find((r) => r.status === 'resolved')!;
      const board = await send(
        getContestLeaderboard({ client: sdkClient(svc.baseUrl), path: { id: resolved.contest_id }, query: { limit: 10 } }),
      );
      expect(board.status).toBe(200);
      const entries = board.data?.entries ?? [];
      expect(entries).toHaveLength(6);
      expect(entries[0]!.rank).toBe(1);
      const detail = await send(
        getContest({ client: sdkClient(svc.baseUrl), path: { id: rows.find((r) => r.title.includes('hidden'))!.contest_id } }),
      );
      expect(detail.status).toBe(200);
      expect(detail.data?.entry_visibility).toBe('hidden_while_betting_open');
    } finally {
      expect(await svc.stop()).toBe(0);
    }
  });

  it('a restart seeds nothing more; the built-in demo maker fills the example taker with nothing else running; the books balance', async () => {
    const svc = await startServiceProcess({ env: { NODE_ENV: 'development', DATA_DIR: dataDir, SIWE_DOMAIN: 'demo.test' } });
    try {
      expect(svc.logs.some(seededLine)).toBe(false);
      expect(await lobby(svc.baseUrl)).toHaveLength(3);
      // examples/taker-client.ts as docs/getting-started.md runs it, against the demo maker alone (a day window: betting stays open).
      const key = generatePrivateKey();
      const taker = await fundWallet(svc.baseUrl, privateKeyToAccount(key), 'demo.test', 2_000_000);
      const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/taker-client.ts'], {
        env: { PATH: process.env.PATH ?? '', SESSION: taker.token, TAKER_PRIVATE_KEY: key, BASE_URL: svc.baseUrl, DURATION_SECS: '86400' },
      });
      expect(run.stdout).toMatch(/^filled 1000000 of 1000000 micros at 1.9x/m); // the demo maker: fair 2x less 5%
      expect(svc.logs.some((l) => l.msg === 'demo maker quoted')).toBe(true);
    } finally {
      expect(await svc.stop()).toBe(0);
    }
    const checked = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ledger-check.ts'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir },
    });
    expect(checked.stdout).toContain('"problems":[]');
    expect(checked.status).toBe(0);
  });

  it('DEMO_DATA=false starts empty', async () => {
    const svc = await startServiceProcess({ env: { NODE_ENV: 'development', DATA_DIR: newDir(), DEMO_DATA: 'false' } });
    try {
      expect(svc.logs.some(seededLine)).toBe(false);
      expect(await lobby(svc.baseUrl)).toHaveLength(0);
    } finally {
      expect(await svc.stop()).toBe(0);
    }
  });

  it('never seeds outside the embedded development default', () => {
    expect(demoSeedAllowed({ nodeEnv: 'development', deployment: 'embedded', demoData: true, settlementMode: 'demo' })).toBe(true);
    expect(demoSeedAllowed({ nodeEnv: 'production', deployment: 'production', demoData: true, settlementMode: 'demo' })).toBe(false);
    expect(demoSeedAllowed({ nodeEnv: 'development', deployment: 'postgres', demoData: true, settlementMode: 'demo' })).toBe(false);
    expect(demoSeedAllowed({ nodeEnv: 'test', deployment: 'embedded', demoData: true, settlementMode: 'demo' })).toBe(false);
    // Real money never mixes with demo money: onchain settlement seeds nothing, even embedded.
    expect(demoSeedAllowed({ nodeEnv: 'development', deployment: 'embedded', demoData: true, settlementMode: 'onchain' })).toBe(false);
  });
});
