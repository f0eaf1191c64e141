// The onchain stack's plumbing for the chain tests (src/testing/onchain-stack.ts): by default the chain runs
// Circle's USDC, and with `provider: true` the services (and ledger:check) reach the node only through the provider
// stand-in (src/testing/rpc-provider.ts), whose counters see their requests. A deposit and a withdrawal go through
// it end to end and are paid exactly once. Behaviours of the settlement code under the stand-in's faults are the
// settlement tests' business (workers/onchain-*.int.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOnchainStack, type OnchainStack } from './onchain-stack.js';

let s: OnchainStack;
beforeAll(async () => {
  s = await startOnchainStack({ label: 'provider', deployment: 'redis', provider: true, chain: { settlementUsdcMicros: 0n } });
});
afterAll(() => s?.stop());

describe('startOnchainStack({ provider: true })', () => {
  it("runs Circle's USDC and routes the services through the provider stand-in", async () => {
    expect(s.chain.usdc?.address).toBe(s.chain.token);
    expect(s.env.CHAIN_RPC_URL).toBe(s.provider!.url);
    expect(s.provider!.counts().eth_chainId).toBeGreaterThanOrEqual(1); // the services' start-up check
  });

  it('pays a pull deposit and a withdrawal through it exactly once', async () => {
    s.provider!.resetCounts();
    const user = await s.fundedUser(3_000_000n);
    const w = await s.withdraw(user, 1_000_000);
    expect([200, 202]).toContain(w.status);
    expect(await s.paidOnceProblems(user, w.id, w.to, 1_000_000)).toEqual([]);
    expect(s.provider!.counts().eth_sendRawTransaction).toBeGreaterThanOrEqual(2); // the deposit's transferFrom and the withdrawal
  });
});
