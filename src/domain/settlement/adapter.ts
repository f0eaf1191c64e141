// Settlement: moving USDC between the user's onchain settlement balance and the service. Handlers and
// workers only see this interface; `SETTLEMENT_MODE=demo` picks the demo adapter, and a chain adapter
// (viem) can implement the same interface without touching them.
import type { Em } from '../../db/orm.js';

export interface SettlementRequest {
  operationId: string;
  userId: string;
  kind: 'deposit' | 'withdraw';
  amount: bigint;
  destinationAddress: string | null;
}

export type SettlementResult = { ok: true; txHash: string } | { ok: false; failureCode: string };

export interface SettlementAdapter {
  readonly mode: 'demo' | 'onchain';
  /**
   * Settles operations (one, or a batch the worker gathered), answering in the order given. Called by the
   * settlement worker inside the transaction that holds the operations' row locks and that will post their
   * ledger transactions; it must be idempotent per operationId (a chain adapter submits with the operation
   * id as its nonce/reference and looks the transfer up before submitting again).
   */
  settle(em: Em, reqs: readonly SettlementRequest[]): Promise<SettlementResult[]>;
  /** Where this user sends USDC for custodial deposits. */
  depositWallet(userId: string): { address: string; chainId: number; asset: 'USDC'; mode: 'demo' | 'onchain' };
}
