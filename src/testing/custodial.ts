// Test helpers for custodial deposits (docs/settlement-custodial.md) on an onchain stack
// (src/testing/onchain-stack.ts): a user's deposit address, the listener's cursor, the credits as the database
// holds them, a batch of transfers mined in ONE block, and the books against the chain.
import { createWalletClient, erc20Abi, http, type Address, type Hash } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { getAvailableBalance, getDepositWallet } from '../../generated/openapi/sdk.gen.js';
import type { OnchainStack, OnchainUser } from './onchain-stack.js';
import { sdkClient, sent } from './sdk-client.js';

/** GET /v1/users/deposit-wallet's address for this user (from API `api`). */
export async function depositAddressOf(s: OnchainStack, u: OnchainUser, api = 0): Promise<Address> {
  const res = await sent(getDepositWallet({ client: sdkClient(s.apis[api]!.baseUrl, u.token) }));
  if (!res.data) throw new Error(`deposit-wallet answered ${res.status}: ${JSON.stringify(res.error)}`);
  return res.data.address as Address;
}

/** The listener's last scanned block (-1 before its first scan). */
export async function cursorOf(s: OnchainStack): Promise<bigint> {
  const { rows } = await s.sql.query(`select block_number::text as n from chain_cursors where name = 'custodial-deposits'`);
  return rows.length ? BigInt(rows[0].n as string) : -1n;
}

/** Polls `check` every 100 ms (mining a block before each poll when `mine`) until it holds. */
export async function until(
  s: OnchainStack,
  what: string,
  check: () => Promise<boolean>,
  opts: { mine?: boolean; timeoutMs?: number } = {},
) {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    if (opts.mine) await s.chain.anvil.mine(1);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the listener has scanned every block the current head confirms (CHAIN_CONFIRMATIONS of the stack). */
export async function scannedToHead(s: OnchainStack, confirmations: number): Promise<bigint> {
  const head = await s.chain.client.getBlockNumber({ cacheTime: 0 });
  const confirmed = head - BigInt(confirmations) + 1n;
  await until(s, `the listener to scan through block ${confirmed}`, async () => (await cursorOf(s)) >= confirmed);
  return confirmed;
}

export interface CreditRow {
  tx_hash: string;
  log_index: number;
  amount: string;
  user_id: string;
  operation_id: string;
}

/** Every credit, with the user it went to. */
export async function credits(s: OnchainStack): Promise<CreditRow[]> {
  const { rows } = await s.sql.query(
    `select d.tx_hash, d.log_index, d.amount::text as amount, a.user_id::text as user_id, d.operation_id::text as operation_id
       from chain_deposits d join deposit_addresses a on a.address = d.to_address order by d.block_number, d.log_index`,
  );
  return rows as CreditRow[];
}

export async function available(s: OnchainStack, u: OnchainUser): Promise<bigint> {
  const res = await sent(getAvailableBalance({ client: sdkClient(s.apis[s.apis.length - 1]!.baseUrl, u.token) }));
  return BigInt(res.data!.available_micros);
}

/**
 * Sends one token transfer per item from `from` and mines them in ONE block (automine off meanwhile); returns
 * the hashes in order, with the block they were mined in.
 */
export async function transfersInOneBlock(s: OnchainStack, from: PrivateKeyAccount, items: ReadonlyArray<{ to: Address; amount: bigint }>) {
  const { anvil, client, token } = s.chain;
  const chain = {
    id: anvil.chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.url] } },
  };
  const wallet = createWalletClient({ account: from, chain, transport: http(anvil.url) });
  const nonce = await client.getTransactionCount({ address: from.address, blockTag: 'pending' });
  await anvil.rpc('evm_setAutomine', [false]);
  const hashes: Hash[] = [];
  try {
    for (const [i, it] of items.entries()) {
      hashes.push(
        await wallet.writeContract({
          address: token,
          abi: erc20Abi,
          functionName: 'transfer',
          args: [it.to, it.amount],
          nonce: nonce + i,
          gas: 100_000n,
        }),
      );
    }
    await anvil.rpc('evm_mine');
  } finally {
    await anvil.rpc('evm_setAutomine', [true]);
  }
  const receipts = await Promise.all(hashes.map((hash) => client.waitForTransactionReceipt({ hash })));
  return { hashes, blocks: new Set(receipts.map((r) => r.blockNumber)) };
}

/** No sweep under way and none due: the deposit addresses are as swept as they will get. */
export async function sweepsIdle(s: OnchainStack): Promise<boolean> {
  const { rows } = await s.sql.query(
    `select (select count(*) from deposit_sweeps where status in ('topup', 'transfer'))::int as active,
            (select count(*) from deposit_addresses where credits > sweep_mark)::int as due`,
  );
  return rows[0].active === 0 && rows[0].due === 0;
}

/** Sweep transactions whose nonce never got a recorded outcome (each must, once its sweep is finished). */
export async function unresolvedSweepTransactions(s: OnchainStack): Promise<number> {
  const { rows } = await s.sql.query(
    `select count(*)::int as n from chain_transactions c
      where c.sweep_id is not null
        and not exists (select 1 from chain_transactions d
                         where d.sweep_id = c.sweep_id and d.from_address = c.from_address and d.nonce = c.nonce and d.receipt_status is not null)`,
  );
  return rows[0].n as number;
}
