import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type Anvil } from './anvil.js';

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
});
