// Keys out of the API (docs/operations.md, "Keys and the signer"): the API process runs with SETTLEMENT_ADDRESS
// only (neither SETTLEMENT_PRIVATE_KEY nor DEPOSIT_MNEMONIC), the workers sign through SETTLEMENT_SIGNER_URL, a
// second anvil holding the settlement wallet's key; no process of the service is given the key. A pull deposit
// and a withdrawal go through the API and are paid exactly once, the books and the reconciliation clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type Anvil } from '../../../testing/anvil.js';
import { startOnchainStack, type OnchainStack } from '../../../testing/onchain-stack.js';

let s: OnchainStack;
let signer: Anvil;
beforeAll(async () => {
  signer = await startAnvil({});
  s = await startOnchainStack({
    label: 'keyless',
    deployment: 'redis',
    noWorkers: true,
    chain: { settlementUsdcMicros: 0n },
    // Empty is unset (src/config-parse.ts): the API and ledger:check get the address, not the key or the mnemonic.
    chainEnv: async (chain) => ({ SETTLEMENT_PRIVATE_KEY: '', DEPOSIT_MNEMONIC: '', SETTLEMENT_ADDRESS: chain.settlement.address }),
  });
  await s.startWorkers({ SETTLEMENT_SIGNER_URL: signer.url });
}, 240_000);
afterAll(async () => {
  await s?.stop();
  await signer?.stop();
});

describe('an API process without the keys', () => {
  it('takes a pull deposit and a withdrawal, signed by the external signer and paid exactly once', async () => {
    expect(s.env.SETTLEMENT_PRIVATE_KEY).toBe('');
    const user = await s.fundedUser(3_000_000n);
    const w = await s.withdraw(user, 1_000_000);
    expect([200, 202]).toContain(w.status);
    expect(await s.paidOnceProblems(user, w.id, w.to, 1_000_000)).toEqual([]);
    const sent = await s.sentRows(w.id);
    expect(sent).toHaveLength(1);
    const check = await s.ledgerCheck();
    expect(check.code).toBe(0);
  }, 240_000);

  it('workers without a key or a signer refuse to start, naming both', async () => {
    const failed = await s.startWorkers().then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(failed).toMatch(/SETTLEMENT_PRIVATE_KEY \(or SETTLEMENT_PRIVATE_KEY_FILE\) or SETTLEMENT_SIGNER_URL: workers sign/);
  }, 120_000);
});
