// SETTLEMENT_MODE=onchain (docs/settlement.md). `advance` does the chain work of one operation outside any
// transaction (src/domain/settlement/onchain/sender.ts) and records its outcome; `settle`, inside the
// settlement worker's transaction, only reads that outcome, so the ledger posting commits with the final
// status exactly once whatever crashed in between.
import { getAddress, type Address } from 'viem';
import type { Em } from '../../../db/orm.js';
import type { Logger } from '../../../logger.js';
import { Unavailable, Unprocessable } from '../../errors.js';
import type { DepositFunds, SettlementAdapter, SettlementResult } from '../adapter.js';
import { ChainCheckError, checkChain, shortReason, type Chain } from '../../../adapters/chain/chain.js';
import { DEPOSIT_CURSOR, scanDeposits } from './deposits.js';
import { nonceGap } from './chain-tx/gap.js';
import { receiptOf } from './chain-tx/node.js';
import { advanceOnchain } from './sender.js';
import { stepSweeps } from './sweeps.js';
import { reconcile } from './reconcile.js';
import { stepColdSweep, type ColdWallet } from './cold-sweep.js';
import { observeChain } from './observe-chain.js';
import { repos } from '../../../db/repos.js';

export function createOnchainSettlement(chain: Chain, log: Logger, cold?: ColdWallet): SettlementAdapter {
  const { settings } = chain;
  return {
    mode: 'onchain',
    // What the chain recorded (a receipt with its confirmations) wins; else a resolution (settlement_resolutions):
    // an operator's of an operation in review, or the service's own refusal before any signature (the chain would
    // refuse it: e.g. a blacklisted destination); else the operation stays pending. Nothing else settles it.
    async settle(em, reqs) {
      const repo = repos(em).chain;
      const ids = reqs.map((r) => r.operationId);
      const outcomes = new Map((await repo.outcomes(ids)).map((o) => [o.operation_id, o]));
      const resolved = new Map((await repo.resolutions(ids)).map((o) => [o.operation_id, o]));
      return reqs.map((r): SettlementResult => {
        const o = outcomes.get(r.operationId);
        if (o) return o.receipt_status === 'success' ? { ok: true, txHash: o.hash } : { ok: false, failureCode: 'SETTLEMENT_FAILED' };
        const byOperator = resolved.get(r.operationId);
        if (!byOperator) return { ok: 'pending' };
        if (byOperator.outcome === 'success') return { ok: true, txHash: byOperator.tx_hash! };
        return { ok: false, failureCode: byOperator.failure_code ?? 'SETTLEMENT_FAILED' };
      });
    },
    advance: (em, operationId, signal) => advanceOnchain(em, chain, chain.account, operationId, { log, signal }),
    chainReceipt: (em, operationId) => chainReceipt(em, chain, log, operationId),
    readDepositFunds: (walletAddress) => readDepositFunds(chain, walletAddress),
    checkDeposit: (em, userId, walletAddress, amount, funds) => checkPullDeposit(em, chain, log, userId, walletAddress, amount, funds),
    async depositWallet(em, userId) {
      const custodial = await custodialAddress(em, chain, log, userId);
      return {
        // Without DEPOSIT_MNEMONIC or DEPOSIT_XPUB there are no custodial addresses: pull deposits only. The settlement wallet is
        // never answered as a deposit address: a plain transfer there would never be credited.
        address: custodial ?? null,
        chainId: settings.chainId,
        asset: 'USDC',
        mode: 'onchain',
        assetAddress: chain.token,
        spenderAddress: chain.settlementAddress,
      };
    },
    // The listener and the sweeps run where the mnemonic is (the workers; an API process has DEPOSIT_XPUB at most).
    ...(settings.depositMnemonic
      ? {
          scanDeposits: (em: Em, signal?: AbortSignal) => scanDeposits(em, chain, log, signal),
          sweepDeposits: (em: Em) => stepSweeps(em, chain, log),
        }
      : {}),
    ...(cold ? { coldSweep: (em: Em) => stepColdSweep(em, chain, chain.account, cold, log) } : {}),
    async nonceGap(em) {
      const gap = await nonceGap(em, chain);
      return gap ? Number(gap.below - gap.from) : 0;
    },
    reconcile: (em) => reconcile(chain, repos(em).ledgerCheck, cold),
    observeChain: (em) => observeChain(em, chain, cold),
    gasFloorWei: settings.gasFloorWei,
    close: () => chain.close(),
  };
}

/** A pull deposit's wallet on chain, read before its write transaction (never while holding the user's lock). */
async function readDepositFunds(chain: Chain, walletAddress: string): Promise<DepositFunds> {
  const wallet = getAddress(walletAddress);
  try {
    const [balance, allowance] = await Promise.all([chain.tokenBalance(wallet), chain.allowance(wallet, chain.settlementAddress)]);
    return { balance, allowance };
  } catch (err) {
    return { unavailable: shortReason(err) };
  }
}

/**
 * In the write transaction, with the funds read before it: the wallet covers this deposit and its pending ones
 * (422 BALANCE_TOO_LOW / ALLOWANCE_TOO_LOW; 503 when the node did not answer). The user's lock is held only for
 * the sum of the pending deposits: no chain read happens under it.
 */
async function checkPullDeposit(
  em: Em,
  chain: Chain,
  log: Logger,
  userId: string,
  walletAddress: string,
  amount: bigint,
  funds: DepositFunds | undefined,
): Promise<void> {
  if (!funds || 'unavailable' in funds) {
    log.warn({ reason: funds?.unavailable ?? 'not read' }, 'chain node error while checking a pull deposit');
    throw new Unavailable('the chain node did not answer; nothing was sent or reserved, retry shortly');
  }
  const { balance, allowance } = funds;
  const pending = await repos(em).chain.lockUserPendingDeposits(userId);
  const wallet = getAddress(walletAddress);
  const needed = amount + pending;
  const details = { wallet_address: wallet, needed_micros: needed.toString(), pending_deposits_micros: pending.toString() };
  if (balance < needed) {
    throw new Unprocessable(
      'BALANCE_TOO_LOW',
      "the wallet's USDC balance does not cover this deposit (and its pending deposits); nothing was sent",
      {
        ...details,
        balance_micros: balance.toString(),
      },
    );
  }
  if (allowance < needed) {
    throw new Unprocessable(
      'ALLOWANCE_TOO_LOW',
      "the wallet's USDC allowance for spender_address (GET /v1/users/deposit-wallet) does not cover this deposit (and its pending deposits); approve more, then retry with a new idempotency_key",
      { ...details, allowance_micros: allowance.toString(), spender_address: chain.settlementAddress },
    );
  }
}

/** A receipt the node serves now for one of the operation's transactions; null when none (or the node did not answer). */
async function chainReceipt(em: Em, chain: Chain, log: Logger, operationId: string) {
  for (const t of await repos(em).chain.transactions(operationId)) {
    try {
      const r = await receiptOf(chain, t.hash);
      if (r) return { hash: t.hash, status: r.status === 'success' ? ('success' as const) : ('reverted' as const) };
    } catch (err) {
      log.warn(
        { operation_id: operationId, reason: shortReason(err) },
        'chain node error while checking an operation in review; the operator decides',
      );
      return null;
    }
  }
  return null;
}

/**
 * The user's custodial deposit address (index users.deposit_index), registered for the listener the first time
 * it is handed out, with the chain's head then (docs/settlement-custodial.md); undefined without DEPOSIT_MNEMONIC
 * or DEPOSIT_XPUB.
 */
async function custodialAddress(em: Em, chain: Chain, log: Logger, userId: string): Promise<Address | undefined> {
  if (!chain.settings.depositMnemonic && !chain.settings.depositXpub) return undefined;
  const repo = repos(em).custodial;
  const known = await repo.registered(userId);
  if (known) return getAddress(known.address);
  const index = await repos(em).chain.depositIndex(userId);
  if (index === undefined) return undefined;
  const address = chain.depositAddress(index)!;
  // Where the listener need not look below: its cursor once it runs (no transfer to this address can be in a
  // block it already scanned), else the chain's head now.
  let head = (await repo.cursor(chain.settings.chainId, DEPOSIT_CURSOR, false))?.block_number;
  if (head === undefined) {
    try {
      head = await chain.client.getBlockNumber({ cacheTime: 0 });
    } catch (err) {
      log.warn({ reason: shortReason(err) }, 'chain node error while registering a deposit address');
      throw new Unavailable('the chain node did not answer; retry shortly');
    }
  }
  // A concurrent first call registers the same row; the second insert changes nothing.
  await repo.register({ address, userId, index, fromBlock: head });
  return address;
}

/**
 * The start-up of onchain settlement: the node's chain and the token's decimals checked (refusing to start
 * otherwise), the settlement wallet's nonce row created from the node's count the first time, and its gas
 * compared with SETTLEMENT_GAS_FLOOR_WEI.
 */
export async function startOnchain(em: Em, chain: Chain, log: Logger): Promise<{ settlementAddress: Address }> {
  const checked = await checkChain(chain);
  const { depositMnemonic, depositXpub } = chain.settings;
  const first = depositMnemonic || depositXpub ? await repos(em).custodial.firstRegistered() : undefined;
  if (first && chain.depositAddress(first.deposit_index) !== getAddress(first.address)) {
    throw new ChainCheckError(
      `${depositMnemonic ? 'DEPOSIT_MNEMONIC' : 'DEPOSIT_XPUB'}: it does not derive the deposit addresses already handed out (index ${first.deposit_index} is ${first.address}); deposits to them could not be swept`,
    );
  }
  const nodeNonce = await chain.client.getTransactionCount({ address: chain.settlementAddress, blockTag: 'pending' });
  await repos(em).chain.ensureNonce(checked.chainId, chain.settlementAddress, BigInt(nodeNonce));
  const fields = {
    chain_id: checked.chainId,
    token: chain.token,
    settlement_address: chain.settlementAddress,
    gas_wei: checked.gasWei.toString(),
  };
  if (checked.gasWei < chain.settings.gasFloorWei) {
    log.warn(
      { ...fields, floor_wei: chain.settings.gasFloorWei.toString() },
      'the settlement wallet holds less gas than SETTLEMENT_GAS_FLOOR_WEI',
    );
  }
  log.info({ ...fields, confirmations: chain.settings.confirmations }, 'onchain settlement ready');
  return { settlementAddress: chain.settlementAddress };
}
