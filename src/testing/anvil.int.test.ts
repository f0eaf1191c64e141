import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_KEYS, startAnvil, type Anvil } from './anvil.js';

describe('anvil (local chain for the chain tests)', () => {
  let chain: Anvil;
  beforeAll(async () => {
    chain = await startAnvil({ chainId: 8453 });
  });
  afterAll(() => chain?.stop());

  it('answers the chain id it was given and mines on request', async () => {
    expect(parseInt(await chain.rpc<string>('eth_chainId'), 16)).toBe(8453);
    const before = parseInt(await chain.rpc<string>('eth_blockNumber'), 16);
    await chain.mine(5);
    expect(parseInt(await chain.rpc<string>('eth_blockNumber'), 16)).toBe(before + 5);
  });

  it('funds exactly the accounts of ANVIL_KEYS', async () => {
    const accounts = await chain.rpc<string[]>('eth_accounts');
    expect(ANVIL_KEYS.map((k) => privateKeyToAccount(k).address.toLowerCase())).toEqual(
      accounts.slice(0, ANVIL_KEYS.length).map((a) => a.toLowerCase()),
    );
  });
});
