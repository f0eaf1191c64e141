// The chain module against a real anvil: the start-up checks (the node's chain id, the token's decimals)
// and the custodial deposit addresses (BIP-44 m/44'/60'/0'/0/<index>).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load.js';
import { startTestChain, type TestChain } from '../../testing/chain.js';
import { createTestDatabase } from '../../testing/postgres.js';
import { startServiceProcess } from '../../testing/service-process.js';
import { checkChain, createChain } from './chain.js';

let t: TestChain;
beforeAll(async () => {
  t = await startTestChain({ settlementUsdcMicros: 5_000_000n });
});
afterAll(async () => t?.stop());

const chainFor = (over: Record<string, string> = {}) => createChain(loadConfig({ ...t.env, ...over }).chain!);

describe('start-up checks', () => {
  it('accept the node and the 6-decimal token, and read the settlement wallet', async () => {
    const chain = chainFor();
    const checked = await checkChain(chain);
    expect(checked).toMatchObject({ chainId: 31337, settlementAddress: t.settlement.address });
    expect(checked.gasWei).toBeGreaterThan(0n);
    expect(await chain.tokenBalance(t.settlement.address)).toBe(5_000_000n);
  });

  it('refuse a node on another chain, naming CHAIN_ID', async () => {
    await expect(checkChain(chainFor({ CHAIN_ID: '8453', ALLOW_UNKNOWN_USDC: 'true' }))).rejects.toThrow(
      /CHAIN_ID: the node at CHAIN_RPC_URL is on chain 31337, not the configured 8453/,
    );
  });

  it('refuse a token without 6 decimals, or an address that is no token', async () => {
    const eighteen = await t.deployToken(18);
    await expect(checkChain(chainFor({ USDC_ADDRESS: eighteen }))).rejects.toThrow(/USDC_ADDRESS: .* has 18 decimals; USDC has 6/);
    await expect(checkChain(chainFor({ USDC_ADDRESS: t.faucet.address }))).rejects.toThrow(
      /USDC_ADDRESS: .* did not answer name\(\), symbol\(\) and decimals\(\)/,
    );
  });

  it('refuse an unreachable node, naming CHAIN_RPC_URL', async () => {
    await expect(checkChain(chainFor({ CHAIN_RPC_URL: 'http://127.0.0.1:1' }))).rejects.toThrow(/CHAIN_RPC_URL: the node did not answer/);
  });
});

describe('custodial deposit addresses', () => {
  it("follow BIP-44 m/44'/60'/0'/0/<index> of DEPOSIT_MNEMONIC, distinct per index", () => {
    const chain = chainFor();
    // The well-known first address of the "abandon ... about" test phrase.
    expect(chain.depositAddress(0n)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    const addresses = new Set([1n, 2n, 3n, 1000n].map((i) => chain.depositAddress(i)));
    expect(addresses.size).toBe(4);
    const { DEPOSIT_MNEMONIC: _m, ...withoutMnemonic } = t.env;
    expect(createChain(loadConfig(withoutMnemonic).chain!).depositAddress(1n)).toBeUndefined();
  });
});

describe('the service', () => {
  it('refuses to start against another chain or a token without 6 decimals, naming the key and never the secret', async () => {
    const db = await createTestDatabase('chainstart');
    const eighteen = await t.deployToken(18);
    try {
      const cases: Array<[Record<string, string>, RegExp]> = [
        [
          { CHAIN_ID: '8453', ALLOW_UNKNOWN_USDC: 'true' },
          /start-up failed: CHAIN_ID: the node at CHAIN_RPC_URL is on chain 31337, not the configured 8453/,
        ],
        // On Base the configuration itself refuses a token other than Circle's USDC (src/config/usdc.ts).
        [{ CHAIN_ID: '8453' }, /USDC_ADDRESS: on chain 8453 it must be Circle's USDC 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913/],
        [{ USDC_ADDRESS: eighteen }, /start-up failed: USDC_ADDRESS: .* has 18 decimals; USDC has 6/],
      ];
      for (const [over, reason] of cases) {
        const failed = await startServiceProcess({
          env: { NODE_ENV: 'test', DATABASE_URL: db.url, ...t.env, ...over },
          args: ['--role=api'],
        }).then(
          () => undefined,
          (err: Error) => err.message,
        );
        expect(failed).toMatch(/process exited \(\d+\) before the expected log line/);
        expect(failed).toMatch(reason);
        expect(failed).not.toContain(t.env.SETTLEMENT_PRIVATE_KEY!.slice(2));
      }
    } finally {
      await db.drop();
    }
  }, 120_000);
});
