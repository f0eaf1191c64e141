// RPC requests per minute of an idle onchain deployment with ADDRESSES custodial deposit addresses
// (docs/performance.md, "Idle RPC"), counted by the provider stand-in (src/testing/rpc-provider.ts) in front
// of anvil, which mines a block every 2 s (Base's block time). In-process, real PostgreSQL; no deposits,
// no withdrawals: only what the deployment does on its own for WINDOW_S seconds.
//   before: the parent's behaviour: one API process refreshing its settlement gauges every 30 s by reading
//           balanceOf of every credited deposit address with one unbounded Promise.all over an unbatched
//           transport (here all ADDRESSES: each was credited once), plus the listener every 5 s over that
//           transport with no trailing window.
//   after:  the listener every 5 s (trailing window of CHAIN_DEPOSIT_REREAD_BLOCKS=32, one JSON-RPC batch per
//           range) and the workers' reconcile-chain job every 60 s (every address, 100 per batch); API
//           processes read the stored figures (0 RPC).
//   npx tsx scripts/bench/idle-rpc.ts [addresses=10000] [window_s=60]
import { cpus } from 'node:os';
import { createPublicClient, erc20Abi, http, type PublicClient } from 'viem';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createChain, type Chain } from '../../src/domain/settlement/onchain/chain.js';
import { scanDeposits } from '../../src/domain/settlement/onchain/deposits.js';
import { observeChain } from '../../src/domain/settlement/onchain/observe-chain.js';
import { startTestChain } from '../../src/testing/chain.js';
import { migratedOrm } from '../../src/testing/orm.js';
import { startProviderProxy } from '../../src/testing/rpc-provider.js';

const [addresses = 10_000, windowS = 60] = process.argv.slice(2).map(Number);
const log = createLogger('silent');
const t = await startTestChain({ confirmations: 3 });
const m = await migratedOrm('idlerpc');
const proxy = await startProviderProxy({ upstream: t.anvil.url });
const env = { ...t.env, CHAIN_RPC_URL: proxy.url, CHAIN_CONFIRMATIONS: '3' };
const after = createChain(loadConfig({ ...env, CHAIN_DEPOSIT_REREAD_BLOCKS: '32' }).chain!);
const parentSettings = loadConfig({ ...env, CHAIN_DEPOSIT_REREAD_BLOCKS: '0' }).chain!;
const parentBase = createChain(parentSettings);
const plain = createPublicClient({ transport: http(proxy.url, { timeout: 10_000, retryCount: 2 }) }) as PublicClient;
const before: Chain = {
  ...parentBase,
  client: plain,
  tokenBalance: (owner) => plain.readContract({ address: parentBase.token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
try {
  // ADDRESSES users with a registered deposit address each, in bulk.
  const head = await t.client.getBlockNumber();
  const conn = m.orm.em.fork().getConnection();
  for (let i = 0; i < addresses; i += 1000) {
    const rows: string[] = [];
    const users: string[] = [];
    for (let k = i; k < Math.min(addresses, i + 1000); k++) {
      const id = `00000000-0000-4000-8000-${k.toString(16).padStart(12, '0')}`;
      users.push(`('${id}', '0x${k.toString(16).padStart(40, '0')}')`);
      rows.push(`('${after.depositAddress(BigInt(k))}', '${id}', ${k}, ${head})`);
    }
    await conn.execute(`insert into users (id, wallet_address) values ${users.join(',')}`);
    await conn.execute(`insert into deposit_addresses (address, user_id, deposit_index, from_block) values ${rows.join(',')}`);
  }
  await t.anvil.mine(5);
  await scanDeposits(m.orm.em.fork(), after, log); // the cursor exists
  const miner = setInterval(() => void t.anvil.mine(1), 2000);

  const measure = async (name: string, tasks: Array<{ everyMs: number; run: () => Promise<unknown> }>) => {
    proxy.resetCounts();
    const started = Date.now();
    const timers = tasks.map((task) => {
      const tick = () => void task.run().catch((err: Error) => console.error(name, err.message.split('\n')[0]));
      tick();
      return setInterval(tick, task.everyMs);
    });
    await sleep(windowS * 1000);
    timers.forEach(clearInterval);
    const s = proxy.stats();
    const perMin = (n: number) => Math.round((n * 60_000) / (Date.now() - started));
    await sleep(3000); // what was in flight
    return { name, requests: perMin(s.requests), calls: perMin(s.calls), rateLimited: s.rateLimited };
  };
  const parentGauges = async () => {
    const owners = Array.from({ length: addresses }, (_, k) => before.depositAddress(BigInt(k))!);
    await Promise.all([
      before.tokenBalance(before.settlementAddress),
      plain.getBalance({ address: before.settlementAddress }),
      ...owners.map((a) => before.tokenBalance(a)),
    ]);
  };
  const rows = [
    // After first: the parent's unbounded reads can still be in flight (retried) when its window ends.
    await measure('after (any number of API processes)', [
      { everyMs: 5000, run: () => scanDeposits(m.orm.em.fork(), after, log) },
      { everyMs: 60_000, run: () => observeChain(m.orm.em.fork(), after) },
    ]),
    await measure('before (parent behaviour, 1 API process)', [
      { everyMs: 5000, run: () => scanDeposits(m.orm.em.fork(), before, log) },
      { everyMs: 30_000, run: parentGauges },
    ]),
  ];
  clearInterval(miner);
  console.log(`idle deployment, ${addresses} deposit addresses, ${windowS} s each, ${cpus().length} cores, ${new Date().toISOString().slice(0, 10)}`);
  console.log('| behaviour | HTTP requests/min | JSON-RPC calls/min |');
  console.log('|---|---:|---:|');
  for (const r of rows) console.log(`| ${r.name} | ${r.requests} | ${r.calls} |`);
} finally {
  await after.close();
  await parentBase.close();
  await proxy.stop();
  await m.close();
  await t.stop();
}
