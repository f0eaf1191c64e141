// RPC requests per minute of an idle onchain deployment with ADDRESSES custodial deposit addresses
// (docs/performance.md, "Idle RPC"), counted by the provider stand-in (src/testing/rpc-provider.ts) in front
// of anvil, which mines a block every 2 s (Base's block time). In-process, real PostgreSQL; no deposits,
// no withdrawals: only what the deployment does on its own for WINDOW_S seconds.
//   before: the parent's behaviour: one API process refreshing its settlement gauges every 30 s by reading
//           balanceOf of every credited deposit address with one unbounded Promise.all over an unbatched
//           transport (here all ADDRESSES: each was credited once), plus the listener every 5 s over that
//           transport with no trailing window.
//   after:  the listener every 5 s (trailing window of CHAIN_DEPOSIT_REREAD_BLOCKS=32, one JSON-RPC batch per
//           range) and the workers' reconcile-chain job every 60 s; API processes read the stored figures (0 RPC).
//           Measured twice: on a chain without Multicall3 (every address's balanceOf, 100 per JSON-RPC batch) and
//           with it (src/testing/multicall3.ts installs it where Base has it: 500 balanceOf per eth_call).
//   npx tsx scripts/bench/idle-rpc.ts [addresses=10000] [window_s=60]
import { cpus } from 'node:os';
import { createPublicClient, erc20Abi, http, type PublicClient } from 'viem';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/logger.js';
import { createChain, type Chain } from '../../src/adapters/chain/chain.js';
import { scanDeposits } from '../../src/domain/settlement/onchain/deposits.js';
import { observeChain } from '../../src/domain/settlement/onchain/observe-chain.js';
import { startTestChain } from '../../src/testing/chain.js';
import { installMulticall3 } from '../../src/testing/multicall3.js';
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
  console.error(new Date().toISOString(), `${addresses} deposit addresses registered`);
  const miner = setInterval(() => void t.anvil.mine(1), 2000);

  const measure = async (name: string, tasks: Array<{ label: string; everyMs: number; run: () => Promise<unknown> }>) => {
    proxy.resetCounts();
    const started = Date.now();
    const timers = tasks.map((task) => {
      const tick = () => void task.run().catch((err: Error) => console.error(name, task.label, err.message.split('\n')[0]));
      tick();
      return setInterval(tick, task.everyMs);
    });
    await sleep(windowS * 1000);
    timers.forEach(clearInterval);
    const s = proxy.stats();
    const perMin = (n: number) => Math.round((n * 60_000) / (Date.now() - started));
    await sleep(3000); // what was in flight
    const row = { name, requests: perMin(s.requests), calls: perMin(s.calls), rateLimited: s.rateLimited };
    console.error(new Date().toISOString(), JSON.stringify(row)); // progress, should a later row not finish
    return row;
  };
  const owners = Array.from({ length: addresses }, (_, k) => before.depositAddress(BigInt(k))!);
  const parentGauges = async () => {
    await Promise.all([
      before.tokenBalance(before.settlementAddress),
      plain.getBalance({ address: before.settlementAddress }),
      ...owners.map((a) => before.tokenBalance(a)),
    ]);
  };
  const afterTasks = [
    { label: 'scan', everyMs: 5000, run: () => scanDeposits(m.orm.em.fork(), after, log) },
    { label: 'reconcile-chain', everyMs: 60_000, run: () => observeChain(m.orm.em.fork(), after) },
  ];
  const rows = [
    // After first: the parent's unbounded reads can still be in flight (retried) when its window ends.
    await measure('after, no Multicall3 on the chain (any number of API processes)', afterTasks),
    await installMulticall3(t.anvil).then(() =>
      measure('after, Multicall3 deployed, as on Base (any number of API processes)', afterTasks),
    ),
  ];
  if (addresses <= 2000) {
    rows.push(
      await measure('before (parent behaviour, 1 API process)', [
        { label: 'scan', everyMs: 5000, run: () => scanDeposits(m.orm.em.fork(), before, log) },
        { label: 'gauges', everyMs: 30_000, run: parentGauges },
      ]),
    );
  } else {
    // Above 2,000 addresses this machine cannot serve the parent's cadence (each refresh's unbounded burst outlasts
    // its 30 s, and the bursts pile up until nothing answers), so "before" is what it SENDS: the listener measured
    // over the window, plus twice (every 30 s) the HTTP requests of one gauge refresh, run alone to its end
    // (retries of its timed-out requests included, as the parent would have sent them). At 10,000 on 2 shared cores
    // even one refresh alone failed every read (docs/performance.md): then no figure is derived.
    const scan = await measure('before: the listener alone', [
      { label: 'scan', everyMs: 5000, run: () => scanDeposits(m.orm.em.fork(), before, log) },
    ]);
    proxy.resetCounts();
    const started = Date.now();
    // The same reads as parentGauges, every one waited for (Promise.all would stop counting at the first failure).
    const settled = await Promise.allSettled([
      before.tokenBalance(before.settlementAddress),
      plain.getBalance({ address: before.settlementAddress }),
      ...owners.map((a) => before.tokenBalance(a)),
    ]);
    const failed = settled.filter((r) => r.status === 'rejected').length;
    const ms = Date.now() - started;
    const s = proxy.stats();
    console.error(
      new Date().toISOString(),
      `one gauge refresh: ${s.requests} requests, ${s.calls} calls, ${ms} ms, ${failed} of ${settled.length} reads failed`,
    );
    // A refresh whose reads failed sent fewer requests than the parent meant to: no per-minute figure is derived from it.
    if (failed === 0) {
      rows.push({
        name: 'before (parent behaviour, 1 API process; derived: listener + 2 refreshes)',
        requests: scan.requests + 2 * s.requests,
        calls: scan.calls + 2 * s.calls,
        rateLimited: 0,
      });
    } else {
      console.log(
        `before: one gauge refresh did not complete: ${failed} of ${settled.length} reads failed in ${ms} ms; ${s.requests} HTTP requests reached the provider`,
      );
    }
  }
  clearInterval(miner);
  console.log(
    `idle deployment, ${addresses} deposit addresses, ${windowS} s each, ${cpus().length} cores, ${new Date().toISOString().slice(0, 10)}`,
  );
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
