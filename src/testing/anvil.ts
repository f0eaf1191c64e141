// A real local EVM chain for tests, drills and `npm run chain:dev`: anvil from the npm package
// `@foundry-rs/anvil` (its binary ships inside the package; nothing is downloaded), on a free port of
// 127.0.0.1. Its dev-only RPCs (evm_mine, evm_setAutomine, evm_snapshot/evm_revert, anvil_reorg,
// evm_setNextBlockTimestamp) drive confirmations, reorganisations, stuck transactions and timed rounds.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from './private-servers.js';

/** anvil's default mnemonic: its first accounts are funded with 10,000 ETH each. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
/**
 * Private keys of anvil's ten default accounts, each funded with 10,000 ETH (public, well known: test chains only;
 * src/testing/anvil.int.test.ts checks them against the mnemonic). Who uses which on the test chain
 * (src/testing/chain.ts, circle-usdc.ts): 0 the faucet (deploys, mints, sends gas), 1 the settlement wallet
 * (never a role), 2-4 free for tests and `npm run chain:dev`'s wallets, 5-9 Circle's USDC roles (proxy admin,
 * master minter, pauser, blacklister, owner).
 */
export const ANVIL_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
] as const;

export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('@foundry-rs/anvil-linux-amd64/package.json');
  return join(dirname(pkg), 'bin', 'anvil');
}

export interface Anvil {
  url: string;
  port: number;
  chainId: number;
  proc: ChildProcess;
  /** Calls a JSON-RPC method (dev methods included) and returns its result; throws on an RPC error. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines `n` blocks at once. */
  mine(n?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface AnvilOptions {
  chainId?: number;
  /** Seconds between blocks; omitted: a block per transaction (automine). */
  blockTime?: number;
  /** Extra command-line arguments. */
  args?: string[];
  port?: number;
}

export async function startAnvil(opts: AnvilOptions = {}): Promise<Anvil> {
  const port = opts.port ?? (await freePort());
  const chainId = opts.chainId ?? 31337;
  const args = ['--port', String(port), '--host', '127.0.0.1', '--chain-id', String(chainId), '--silent'];
  if (opts.blockTime) args.push('--block-time', String(opts.blockTime));
  args.push(...(opts.args ?? []));
  const proc = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  const until = Date.now() + 20_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`anvil exited with ${proc.exitCode}: ${stderr}`);
    try {
      await rpc('eth_chainId');
      break;
    } catch {
      if (Date.now() > until) {
        proc.kill('SIGKILL');
        throw new Error(`anvil did not answer on ${url} within 20 s: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    port,
    chainId,
    proc,
    rpc,
    mine: async (n = 1) => {
      await rpc('anvil_mine', [`0x${n.toString(16)}`]);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}
