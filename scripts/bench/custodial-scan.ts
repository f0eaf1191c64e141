// The custodial deposit listener's catch-up speed (docs/settlement-custodial.md): USERS registered deposit
// addresses, TRANSFERS token transfers into them mined BATCH per block, spread over BLOCKS blocks of a local
// anvil; then ONE scanDeposits call (in-process, real PostgreSQL) credits them all from the cursor, in
// eth_getLogs ranges of CHAIN_LOG_BLOCK_RANGE. Prints the blocks, ranges, credits and their rate.
//   npx tsx scripts/bench/custodial-scan.ts [users=100] [transfers=1000] [blocks=1000] [range=500]
import { randomUUID } from 'node:crypto';
import { createWalletClient, erc20Abi, http } from 'viem';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/logger.js';
import { createOnchainSettlement } from '../../src/domain/settlement/onchain/adapter.js';
import { createChain } from '../../src/adapters/chain/chain.js';
import { scanDeposits } from '../../src/domain/settlement/onchain/deposits.js';
import { startTestChain } from '../../src/testing/chain.js';
import { ledgerProblems } from '../../src/testing/money.js';
import { migratedOrm } from '../../src/testing/orm.js';

const [users = 100, transfers = 1000, blocks = 1000, range = 500] = process.argv.slice(2).map(Number);
const BATCH = 100;
const log = createLogger('silent');
const t = await startTestChain({ confirmations: 1 });
const m = await migratedOrm('custbench');
const chain = createChain(loadConfig({ ...t.env, CHAIN_CONFIRMATIONS: '1', CHAIN_LOG_BLOCK_RANGE: String(range) }).chain!);
try {
  const adapter = createOnchainSettlement(chain, log);
  const addresses: `0x${string}`[] = [];
  for (let i = 0; i < users; i++) {
    const id = randomUUID();
    await m.orm.em
      .fork()
      .getConnection()
      .execute(`insert into users (id, wallet_address) values ('${id}', '0x${id.replace(/-/g, '').padEnd(40, '0')}')`);
    addresses.push((await adapter.depositWallet(m.orm.em.fork(), id)).address as `0x${string}`);
  }
  // The cursor starts here, before any transfer.
  await scanDeposits(m.orm.em.fork(), chain, log);
  const sender = await t.newWallet(BigInt(transfers) * 2_000_000n);
  const viemChain = {
    id: t.anvil.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [t.anvil.url] } },
  };
  const wallet = createWalletClient({ account: sender, chain: viemChain, transport: http(t.anvil.url) });
  let nonce = await t.client.getTransactionCount({ address: sender.address, blockTag: 'pending' });
  const batches = Math.ceil(transfers / BATCH);
  const gap = Math.max(0, Math.floor(blocks / batches) - 1);
  await t.anvil.rpc('evm_setAutomine', [false]);
  for (let b = 0, sent = 0; b < batches; b++) {
    for (let i = 0; i < BATCH && sent < transfers; i++, sent++) {
      const to = addresses[sent % addresses.length]!;
      await wallet.writeContract({
        address: t.token,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to, 1_000_000n + BigInt(sent)],
        nonce: nonce++,
        gas: 100_000n,
      });
    }
    await t.anvil.rpc('evm_mine');
    if (gap) await t.anvil.mine(gap);
  }
  await t.anvil.rpc('evm_setAutomine', [true]);
  const started = performance.now();
  const result = await scanDeposits(m.orm.em.fork(), chain, log);
  const ms = performance.now() - started;
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: m.db.url });
  await c.connect();
  const problems = await ledgerProblems(c);
  await c.end();
  process.stdout.write(
    `${JSON.stringify({ users, transfers, blocks_scanned: Number(result.cursor), ranges: result.ranges, credited: result.credited, ms: Math.round(ms), credits_per_s: Math.round((result.credited / ms) * 1000), ledger_problems: problems.length })}\n`,
  );
} finally {
  await chain.close();
  await m.close();
  await t.stop();
}
