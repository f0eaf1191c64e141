// SETTLEMENT_MODE and the onchain settlement keys: every bad value named, secrets read inline or from a
// *_FILE, never shown in a message or a log line, and demo settlement refused in production unless allowed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load.js';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ONCHAIN = {
  SETTLEMENT_MODE: 'onchain',
  CHAIN_RPC_URL: 'http://127.0.0.1:8545',
  USDC_ADDRESS: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  ALLOW_DEV_IDENTITY_ONCHAIN: 'true',
  SETTLEMENT_PRIVATE_KEY: KEY,
};
const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as ConfigError).problems;
  }
  return [];
};

describe('SETTLEMENT_MODE', () => {
  it('defaults to demo with no chain', () => {
    const c = loadConfig({});
    expect(c.settlementMode).toBe('demo');
    expect(c.chain).toBeUndefined();
  });

  it('production refuses demo settlement unless ALLOW_DEMO_SETTLEMENT=true', () => {
    const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://u@h/db', OPERATOR_TOKEN: 'x'.repeat(32) };
    expect(problemsOf(prod).join('\n')).toMatch(/SETTLEMENT_MODE: demo settlement .* refused when NODE_ENV=production/);
    expect(problemsOf({ ...prod, ALLOW_DEMO_SETTLEMENT: 'true' }).join('\n')).not.toMatch(/SETTLEMENT_MODE/);
    expect(problemsOf({ ...prod, ...ONCHAIN }).join('\n')).not.toMatch(/SETTLEMENT_MODE/);
  });

  it('onchain reads the chain keys with their defaults (Base, 3 confirmations)', () => {
    const c = loadConfig(ONCHAIN);
    expect(c.settlementMode).toBe('onchain');
    expect(c.chain).toMatchObject({ rpcUrl: ONCHAIN.CHAIN_RPC_URL, chainId: 8453, usdcAddress: ONCHAIN.USDC_ADDRESS, confirmations: 3 });
    expect(c.chain!.settlementKey!.reveal()).toBe(KEY);
    expect(c.chain!.depositMnemonic).toBeUndefined();
    expect(
      loadConfig({ ...ONCHAIN, CHAIN_RPC_URL: 'wss://node.example/ws', CHAIN_ID: '31337', CHAIN_CONFIRMATIONS: '1' }).chain,
    ).toMatchObject({
      rpcUrl: 'wss://node.example/ws',
      chainId: 31337,
      confirmations: 1,
    });
    const several = 'https://a.example/v2/k1, wss://b.example/ws';
    expect(loadConfig({ ...ONCHAIN, CHAIN_RPC_URL: several }).chain).toMatchObject({ rpcUrl: several });
    expect(problemsOf({ ...ONCHAIN, CHAIN_RPC_URL: 'https://a.example,ftp://b' }).join('\n')).toContain('CHAIN_RPC_URL');
  });

  it('onchain names every missing or bad key', () => {
    const missing = problemsOf({ SETTLEMENT_MODE: 'onchain' }).join('\n');
    expect(missing).toMatch(/CHAIN_RPC_URL: required/);
    expect(missing).toMatch(/USDC_ADDRESS: required/);
    expect(missing).toMatch(/SETTLEMENT_PRIVATE_KEY \(or SETTLEMENT_PRIVATE_KEY_FILE\) or SETTLEMENT_ADDRESS: one is required/);
    const bad = problemsOf({
      ...ONCHAIN,
      CHAIN_RPC_URL: 'ftp://x',
      USDC_ADDRESS: '0x12',
      CHAIN_CONFIRMATIONS: '0',
      SETTLEMENT_GAS_FLOOR_WEI: '-1',
    }).join('\n');
    for (const k of ['CHAIN_RPC_URL', 'USDC_ADDRESS', 'CHAIN_CONFIRMATIONS', 'SETTLEMENT_GAS_FLOOR_WEI']) expect(bad).toContain(k);
    expect(problemsOf({ SETTLEMENT_MODE: 'chain' }).join('\n')).toContain('SETTLEMENT_MODE');
  });

  it('a process without the key: SETTLEMENT_ADDRESS, with SETTLEMENT_SIGNER_URL or not; never a key and a signer', () => {
    const { SETTLEMENT_PRIVATE_KEY: _k, ...noKey } = ONCHAIN;
    const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    expect(loadConfig({ ...noKey, SETTLEMENT_ADDRESS: address.toLowerCase() }).chain).toMatchObject({
      settlementAddress: address,
      settlementKey: undefined,
    });
    const remote = loadConfig({ ...noKey, SETTLEMENT_ADDRESS: address, SETTLEMENT_SIGNER_URL: 'http://signer:9000' }).chain!;
    expect(remote).toMatchObject({ settlementAddress: address, signerUrl: 'http://signer:9000', settlementKey: undefined });
    expect(loadConfig(ONCHAIN).chain!.settlementAddress).toBe(address); // the key's
    expect(problemsOf({ ...noKey, SETTLEMENT_SIGNER_URL: 'http://signer:9000' }).join('\n')).toMatch(
      /SETTLEMENT_SIGNER_URL: requires SETTLEMENT_ADDRESS/,
    );
    expect(problemsOf({ ...ONCHAIN, SETTLEMENT_SIGNER_URL: 'http://signer:9000' }).join('\n')).toMatch(
      /SETTLEMENT_SIGNER_URL \/ SETTLEMENT_PRIVATE_KEY: set one/,
    );
    expect(problemsOf({ ...ONCHAIN, SETTLEMENT_ADDRESS: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' }).join('\n')).toMatch(
      /SETTLEMENT_ADDRESS: is not SETTLEMENT_PRIVATE_KEY's address/,
    );
    expect(problemsOf({ ...noKey, SETTLEMENT_ADDRESS: '0x12' }).join('\n')).toMatch(/SETTLEMENT_ADDRESS: must be/);
    expect(problemsOf({ ...noKey, SETTLEMENT_ADDRESS: address, SETTLEMENT_SIGNER_URL: 'ftp://x' }).join('\n')).toMatch(
      /SETTLEMENT_SIGNER_URL/,
    );
  });

  it('never shows a secret: not in a problem, not in the config as logged', () => {
    const badKey = '0xnot-a-key-but-a-secret-anyway';
    const badPhrase = 'correct horse battery staple secret words';
    const text = problemsOf({ ...ONCHAIN, SETTLEMENT_PRIVATE_KEY: badKey, DEPOSIT_MNEMONIC: badPhrase }).join('\n');
    expect(text).toMatch(/SETTLEMENT_PRIVATE_KEY: must be a 0x-prefixed 32-byte hex private key/);
    expect(text).toMatch(/DEPOSIT_MNEMONIC: must be a BIP-39 phrase/);
    expect(text).not.toContain(badKey);
    expect(text).not.toContain('horse');
    const c = loadConfig({ ...ONCHAIN, DEPOSIT_MNEMONIC: MNEMONIC });
    for (const shown of [
      JSON.stringify(c, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
      inspect(c, { depth: 10 }),
      String(c.chain!.settlementKey),
    ]) {
      expect(shown).not.toContain(KEY.slice(2));
      expect(shown).not.toContain('abandon');
    }
  });

  it('reads each secret from a *_FILE, not from both', () => {
    const dir = mkdtempSync(join(tmpdir(), 'crfq-secrets-'));
    writeFileSync(join(dir, 'key'), `${KEY}\n`);
    writeFileSync(join(dir, 'mnemonic'), `${MNEMONIC}\n`);
    const { SETTLEMENT_PRIVATE_KEY: _inline, ...rest } = ONCHAIN;
    const c = loadConfig({ ...rest, SETTLEMENT_PRIVATE_KEY_FILE: join(dir, 'key'), DEPOSIT_MNEMONIC_FILE: join(dir, 'mnemonic') });
    expect(c.chain!.settlementKey!.reveal()).toBe(KEY);
    expect(c.chain!.depositMnemonic!.reveal()).toBe(MNEMONIC);
    expect(problemsOf({ ...ONCHAIN, SETTLEMENT_PRIVATE_KEY_FILE: join(dir, 'key') }).join('\n')).toMatch(
      /SETTLEMENT_PRIVATE_KEY \/ SETTLEMENT_PRIVATE_KEY_FILE: set one, not both/,
    );
    expect(problemsOf({ ...rest, SETTLEMENT_PRIVATE_KEY_FILE: join(dir, 'missing') }).join('\n')).toMatch(
      /SETTLEMENT_PRIVATE_KEY_FILE: cannot read .* \(ENOENT\)/,
    );
  });
});
