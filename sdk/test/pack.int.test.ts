// The SDK as a partner gets it: `npm pack` in sdk/, `npm install <tarball>` into an empty folder (from the
// registry: ws, and viem as the peer), then a small program type-checks against the installed declarations
// (strict, no @types/node, @ts-expect-error lines prove the types are not `any`), compiles and runs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const SDK = fileURLToPath(new URL('..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const dir = mkdtempSync(join(tmpdir(), 'crfq-sdk-pack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(cmd: string, args: string[], cwd: string, timeoutMs: number) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}${r.error ? `\n${r.error.message}` : ''}` };
}

const PROGRAM = `import {
  createClient, getCurrentMarket, listContests, MarketMakerClient, MarketMakerGoneError, signOrder, authMessageBytes,
  statement, operationsHistory, type RfqTypedData, type RfqOrderJson, type ContestLobbyRow, type WsMessages,
} from '@contest-rfq/sdk';
import { privateKeyToAccount } from 'viem/accounts';

const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const client = createClient({ baseUrl: 'http://127.0.0.1:9', token: 'session-token' });
export async function lobby(): Promise<ContestLobbyRow[]> {
  const { data } = await listContests({ client, query: { limit: 10 } });
  return data?.contests ?? [];
}
export const market = () => getCurrentMarket({ client, query: { asset: 'BTC', duration_secs: 300 } });
export async function available(): Promise<string | undefined> {
  for await (const m of statement(client, { limit: 50 })) return m.balances_after.available_micros;
  return undefined;
}
// @ts-expect-error: kind is deposit or withdraw
export const transfers = operationsHistory(client, { kind: 'transfer' });

const mm = new MarketMakerClient({ url: 'ws://127.0.0.1:9/v1/ws', account, reconnect: false });
mm.onMessage('ping', (m: WsMessages.PingMessage) => m.timestamp.toFixed());
mm.on('gave_up', (e: MarketMakerGoneError) => e.code);
// @ts-expect-error: not a message of the AsyncAPI document
mm.onMessage('no_such_message', () => undefined);
// @ts-expect-error: the service sends ping, the client never does
export const wrong = () => mm.send({ type: 'ping', timestamp: 1 });

const typedData: RfqTypedData = {
  domain: { name: 'contest-rfq-service', version: '1', chainId: 8453, salt: '0x8d5d28a7520b2fce0220b78bd608db6c5be909e11e680da4203c9aadfd8911e4' },
  types: {
    RfqOrder: [{ name: 'taker', type: 'address' }, { name: 'legs', type: 'Leg[]' }, { name: 'stakeMicros', type: 'uint64' },
      { name: 'minOddsBps', type: 'uint32' }, { name: 'orderType', type: 'uint8' }, { name: 'nonce', type: 'uint64' }, { name: 'deadlineMs', type: 'uint64' }],
    Leg: [{ name: 'marketId', type: 'uint64' }, { name: 'direction', type: 'uint8' }],
    Quote: [],
  },
  primary_types: { order: 'RfqOrder', quote: 'Quote' },
};
const order: RfqOrderJson = {
  taker: account.address, legs: [{ market_id: 1042, direction: 'up' }, { market_id: 1043, direction: 'down' }],
  stake_micros: 10000000, min_odds_bps: 25000, order_type: 'FOK', nonce: 1, deadline_ms: 1767225630000,
};
// @ts-expect-error: direction is up or down
export const badLeg: RfqOrderJson['legs'][number] = { market_id: 1, direction: 'yes' };
console.log(authMessageBytes('contest-rfq-service market-maker v1', '00'.repeat(32), 1).length);
console.log(await signOrder(account, typedData, order));
`;

it('npm pack, install into an empty folder, type-check and run a program against it', { timeout: 240_000 }, () => {
  const pack = run('npm', ['pack', '--pack-destination', dir, '--silent'], SDK, 90_000);
  expect(pack.status, pack.out).toBe(0);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  expect(tarball, pack.out).toBe('contest-rfq-sdk-0.1.0.tgz');

  const app = join(dir, 'app');
  run('mkdir', ['-p', app], dir, 5_000);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
  // viem pinned as the repository pins it (newer ones need packages this registry lacks); ws comes from the SDK.
  const install = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `../${tarball}`, 'viem@2.57.1'], app, 150_000);
  expect(install.status, install.out).toBe(0);
  expect(readdirSync(join(app, 'node_modules'))).toEqual(expect.arrayContaining(['@contest-rfq', 'viem', 'ws']));

  writeFileSync(join(app, 'main.ts'), PROGRAM);
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2023', 'dom'],
        strict: true,
        types: [],
        outDir: 'out',
      },
      files: ['main.ts'],
    }),
  );
  const tsc = run(process.execPath, [TSC, '-p', 'tsconfig.json'], app, 60_000);
  expect(tsc.status, tsc.out).toBe(0);

  const main = run(process.execPath, ['out/main.js'], app, 20_000);
  expect(main.status, main.out).toBe(0);
  expect(main.out.trim().split('\n').slice(0, 2)).toEqual([
    '75',
    // the worked example of GET /v1/rfq/typed-data (anvil key #0)
    '0x2b452a3c005a6d790d063434ccc435b66c5af72a1116a63a52e02ddfa139133e271cd4336f6cd31c8e4166d82ad4694dd33dd4b28741cbdb807f956b8c8427c41b',
  ]);
});
