// Settlement: moving USDC between the user's onchain settlement balance and the service. Handlers and
// workers only see this interface; SETTLEMENT_MODE picks the adapter: `demo` (no chain, src/domain/
// settlement/demo.ts) or `onchain` (USDC on an EVM chain with viem, src/domain/settlement/onchain/).
import type { Em } from '../../db/orm.js';
import type { Posting } from '../ledger/ledger.js';
import type { Reconciliation } from './onchain/reconcile.js';

export interface SettlementRequest {
  operationId: string;
  userId: string;
  kind: 'deposit' | 'withdraw';
  amount: bigint;
  destinationAddress: string | null;
}

/** `pending`: the chain has no final outcome yet (onchain only); the operation stays pending. */
export type SettlementResult = { ok: true; txHash: string } | { ok: false; failureCode: string } | { ok: 'pending' };

export interface DepositWallet {
  /** The custodial deposit address; null: none on this deployment (onchain without DEPOSIT_MNEMONIC: pull deposits only). */
  address: string | null;
  chainId: number;
  asset: 'USDC';
  mode: 'demo' | 'onchain';
  /** Onchain: the token's contract address. */
  assetAddress?: string;
  /** Onchain: the settlement wallet, which a pull deposit's approve() must name as spender. */
  spenderAddress?: string;
}

/**
 * The ledger posting of a settled deposit, from the settlement clearing account to the user's available balance:
 * a pull deposit the settlement worker settles (src/domain/money/operations.ts) and a custodial one the listener
 * credits (src/domain/settlement/onchain/deposits.ts) post the same.
 */
export function depositPosting(operationId: string, userId: string, amount: bigint): Posting {
  return {
    kind: 'deposit',
    reference: operationId,
    entries: [
      { account: { system: 'settlement_clearing' }, amount: -amount },
      { account: { userId, kind: 'user_available' }, amount },
    ],
  };
}

/** A pull deposit's wallet as read from the chain before the write (readDepositFunds). */
export type DepositFunds = { balance: bigint; allowance: bigint } | { unavailable: string };

export interface SettlementAdapter {
  readonly mode: 'demo' | 'onchain';
  /**
   * Settles operations (one, or a batch the worker gathered), answering in the order given. Called by the
   * settlement worker inside the transaction that holds the operations' row locks and that will post their
   * ledger transactions; it must be idempotent per operationId. The onchain adapter sends nothing here: it
   * answers the outcome `advance` recorded.
   */
  settle(em: Em, reqs: readonly SettlementRequest[]): Promise<SettlementResult[]>;
  /**
   * Onchain only, before `settle`, outside any transaction: signs, broadcasts and waits for the operation's
   * transaction until its outcome is recorded (or `signal` aborts). Idempotent; safe in two processes at once.
   * `needs_review`: the chain could not prove the operation's outcome; only an operator resolves it
   * (docs/settlement.md), and the outbox relay hands it back every CHAIN_REVIEW_RECHECK_MS for another look.
   * `deferred`: it waits for something that takes long (funds, gas, the fee cap, a paused token); the relay
   * hands it back every CHAIN_WAIT_RECHECK_MS.
   */
  advance?(em: Em, operationId: string, signal?: AbortSignal): Promise<'recorded' | 'waiting' | 'deferred' | 'needs_review'>;
  /**
   * Onchain only, before the deposit's write transaction (never while it holds the user's lock): the wallet's
   * USDC balance and its allowance for the settlement wallet, or why the node did not answer.
   */
  readDepositFunds?(walletAddress: string): Promise<DepositFunds>;
  /**
   * Onchain only, in the deposit's write transaction before it opens, with what readDepositFunds read: 422
   * BALANCE_TOO_LOW or ALLOWANCE_TOO_LOW when the wallet cannot cover this deposit on top of its pending ones;
   * 503 when the node did not answer. Reads no chain.
   */
  checkDeposit?(em: Em, userId: string, walletAddress: string, amount: bigint, funds: DepositFunds | undefined): Promise<void>;
  /**
   * Onchain only: a receipt the node serves now for one of the operation's transactions (any status), or null
   * (none, or the node did not answer). Asked before an operator resolves an operation in review.
   */
  chainReceipt?(em: Em, operationId: string): Promise<{ hash: string; status: 'success' | 'reverted' } | null>;
  /** Onchain only: the chain's holdings against the books, and the settlement wallet's gas (src/domain/settlement/onchain/reconcile.ts). */
  reconcile?(em: Em): Promise<Reconciliation>;
  /**
   * Onchain only: the settlement wallet's nonce gap now (src/domain/settlement/onchain/chain-tx/gap.ts): how many nonces
   * below its lowest stored open one have no stored transaction (0: none); nothing above them can be mined.
   */
  nonceGap?(em: Em): Promise<number>;
  /**
   * Onchain only, run by the workers' reconcile-chain job: reads the chain once (head, listener lag, nonce gap,
   * reconciliation) and stores it in chain_observations (src/domain/settlement/onchain/observe-chain.ts).
   */
  observeChain?(em: Em): Promise<{ ok: boolean; error?: string }>;
  /** Onchain only: SETTLEMENT_GAS_FLOOR_WEI. */
  readonly gasFloorWei?: bigint;
  /** Where this user sends USDC for custodial deposits. */
  depositWallet(em: Em, userId: string): Promise<DepositWallet>;
  /**
   * Onchain with DEPOSIT_MNEMONIC (docs/settlement-custodial.md): one scan of the custodial deposit listener,
   * crediting confirmed USDC transfers into deposit addresses. Idempotent; safe in two processes at once.
   */
  scanDeposits?(em: Em, signal?: AbortSignal): Promise<object>;
  /** Onchain with DEPOSIT_MNEMONIC: one tick of the sweeps of deposit addresses into the settlement wallet. */
  sweepDeposits?(em: Em): Promise<object>;
  /** Onchain with HOT_WALLET_MAX_MICROS: one tick of the cold-wallet sweep (src/domain/settlement/onchain/cold-sweep.ts). */
  coldSweep?(em: Em): Promise<object>;
  close?(): Promise<void>;
}
