// `npm run chain:dev -- --chain-only` (scripts/chain-dev.ts): the chain and the token alone, no service. It prints
// the RPC URL, the chain id, the token address and the funded keys; each printed fact is checked on the chain.
import { spawn } from 'node:child_process';
import { createPublicClient, erc20Abi, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';

interface Printed {
  rpc_url: string;
  chain_id: number;
  token: Address;
  settlement_key: Hex;
  wallet_keys: Hex[];
}

describe('chain:dev --chain-only', () => {
  it('starts anvil and the token alone and prints what an operator needs, all true on the chain', async () => {
    const child = spawn('npx', ['tsx', 'scripts/chain-dev.ts', '--chain-only', '--test-usdc'], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    try {
      const printed = await new Promise<Printed>((resolve, reject) => {
        child.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          const line = out.split('\n').find((l) => l.startsWith('{"chain_dev"'));
          if (line) resolve((JSON.parse(line) as { chain_dev: Printed }).chain_dev);
        });
        child.stderr.on('data', (b: Buffer) => (out += b.toString()));
        child.once('exit', (code) => reject(new Error(`chain:dev exited (${code}) before printing: ${out}`)));
      });
      expect(out).toContain(`rpc url         ${printed.rpc_url}`);
      expect(out).toMatch(/SETTLEMENT_MODE=onchain/);
      expect(out).toContain(`USDC_ADDRESS=${printed.token}`);
      expect(out).not.toMatch(/service\s+http/); // no service was started
      const client = createPublicClient({ transport: http(printed.rpc_url) });
      expect(await client.getChainId()).toBe(printed.chain_id);
      expect(await client.readContract({ address: printed.token, abi: erc20Abi, functionName: 'decimals' })).toBe(6);
      for (const key of printed.wallet_keys) {
        const owner = privateKeyToAccount(key).address;
        expect(await client.readContract({ address: printed.token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })).toBe(
          1_000_000_000n,
        );
        expect(await client.getBalance({ address: owner })).toBeGreaterThan(0n);
      }
      expect(await client.getBalance({ address: privateKeyToAccount(printed.settlement_key).address })).toBeGreaterThan(0n);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  }, 120_000);
});
