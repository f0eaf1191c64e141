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
   * Settles one operation. Called by the settlement worker inside the transaction that holds the
   * operation's row lock and that will post the ledger transaction; it must be idempotent per
   * operationId (a chain adapter submits with the operation id as its nonce/reference and looks the
   * transfer up before submitting again).
   */
  settle(em: Em, req: SettlementRequest): Promise<SettlementResult>;
  /** Where this user sends USDC for custodial deposits. */
  depositWallet(userId: string): { address: string; chainId: number; asset: 'USDC'; mode: 'demo' | 'onchain' };
}
