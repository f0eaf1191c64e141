// The custody settings (src/config/custody.ts) and the denylist file they name: defaults by settlement mode, every
// bad value named, the file read at start-up (a bad line stops the start) and re-read while running (a bad file is
// refused and the list in force stays: src/domain/money/denylist.test.ts).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDenylist } from './denylist.js';
import { ConfigError, loadConfig } from './load.js';

const ONCHAIN = {
  SETTLEMENT_MODE: 'onchain',
  CHAIN_RPC_URL: 'http://127.0.0.1:8545',
  USDC_ADDRESS: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  ALLOW_DEV_IDENTITY_ONCHAIN: 'true',
  SETTLEMENT_PRIVATE_KEY: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
};
const A = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const B = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';
const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as ConfigError).problems;
  }
  return [];
};
const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'denylist-')), 'denylist');
  writeFileSync(path, text);
  return path;
};

describe('custody settings', () => {
  it('defaults: no fee, no limit, no review; the minimums are 1 USDC onchain and 1 micro in demo', () => {
    const demo = loadConfig({}).custody;
    expect(demo).toMatchObject({
      withdrawalMinMicros: 1n,
      depositMinMicros: 1n,
      withdrawalFeeMicros: 0n,
      withdrawalDailyLimitMicros: null,
      withdrawalsHourlyLimitMicros: null,
      withdrawalReviewAboveMicros: null,
      coldWalletAddress: null,
      denylist: undefined,
      sanctionsOracle: undefined,
    });
    expect(loadConfig(ONCHAIN).custody).toMatchObject({ withdrawalMinMicros: 1_000_000n, depositMinMicros: 1_000_000n });
  });

  it('takes every value, checksums the cold wallet and the oracle, and reads the oracle through CHAIN_RPC_URL', () => {
    const c = loadConfig({
      ...ONCHAIN,
      WITHDRAWAL_MIN_MICROS: '2000000',
      WITHDRAWAL_FEE_MICROS: '250000',
      DEPOSIT_MIN_MICROS: '5000000',
      WITHDRAWAL_DAILY_LIMIT_MICROS: '10000000000',
      WITHDRAWALS_HOURLY_LIMIT_MICROS: '50000000000',
      WITHDRAWAL_REVIEW_ABOVE_MICROS: '0',
      COLD_WALLET_ADDRESS: A.toLowerCase(),
      SANCTIONS_ORACLE_ADDRESS: B,
    }).custody;
    expect(c).toMatchObject({
      withdrawalMinMicros: 2_000_000n,
      withdrawalFeeMicros: 250_000n,
      depositMinMicros: 5_000_000n,
      withdrawalDailyLimitMicros: 10_000_000_000n,
      withdrawalsHourlyLimitMicros: 50_000_000_000n,
      withdrawalReviewAboveMicros: 0n,
      coldWalletAddress: A,
      sanctionsOracle: { address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', rpcUrl: ONCHAIN.CHAIN_RPC_URL },
    });
  });

  it('names every bad value at once', () => {
    const problems = problemsOf({
      WITHDRAWAL_MIN_MICROS: '0',
      WITHDRAWAL_FEE_MICROS: '-1',
      DEPOSIT_MIN_MICROS: '1.5',
      WITHDRAWALS_HOURLY_LIMIT_MICROS: '9007199254740992',
      COLD_WALLET_ADDRESS: '0x5AAEB6053F3E94C9b9A09f33669435E7Ef1BeAed',
      SANCTIONS_ORACLE_ADDRESS: 'nope',
    });
    for (const key of [
      'WITHDRAWAL_MIN_MICROS',
      'WITHDRAWAL_FEE_MICROS',
      'DEPOSIT_MIN_MICROS',
      'WITHDRAWALS_HOURLY_LIMIT_MICROS',
      'COLD_WALLET_ADDRESS',
      'SANCTIONS_ORACLE_ADDRESS',
    ]) {
      expect(problems.join('\n')).toMatch(new RegExp(`^${key}: `, 'm'));
    }
  });

  it('cross-field rules: a daily limit below the minimum, an oracle without a node', () => {
    expect(problemsOf({ WITHDRAWAL_MIN_MICROS: '5', WITHDRAWAL_DAILY_LIMIT_MICROS: '4' })).toEqual([
      expect.stringMatching(/^WITHDRAWAL_DAILY_LIMIT_MICROS: must be at least WITHDRAWAL_MIN_MICROS \(5\)/),
    ]);
    expect(problemsOf({ SANCTIONS_ORACLE_ADDRESS: B })).toEqual([
      expect.stringMatching(/^SANCTIONS_ORACLE_ADDRESS: requires CHAIN_RPC_URL/),
    ]);
  });

  it('HOT_WALLET_MAX_MICROS: onchain with COLD_WALLET_ADDRESS only', () => {
    const need = [expect.stringMatching(/^HOT_WALLET_MAX_MICROS: requires SETTLEMENT_MODE=onchain and COLD_WALLET_ADDRESS/)];
    expect(problemsOf({ ...ONCHAIN, HOT_WALLET_MAX_MICROS: '1000000' })).toEqual(need);
    expect(problemsOf({ COLD_WALLET_ADDRESS: A, HOT_WALLET_MAX_MICROS: '1000000' })).toEqual(need);
    const c = loadConfig({ ...ONCHAIN, COLD_WALLET_ADDRESS: A, HOT_WALLET_MAX_MICROS: '1000000' }).custody;
    expect(c).toMatchObject({ coldWalletAddress: A, hotWalletMaxMicros: 1_000_000n });
  });
});

describe('WITHDRAWAL_DENYLIST_FILE', () => {
  it('parses one address a line, any valid case, ignoring comments and blank lines; names every bad line', () => {
    expect(parseDenylist(`# refused\n\n${A}\n${B}  # scam report\n${A.toLowerCase()}\n`)).toEqual({
      addresses: [A.toLowerCase(), B],
      problems: [],
    });
    expect(parseDenylist(`${A}\nnot-an-address\n0x5AAEB6053F3E94C9b9A09f33669435E7Ef1BeAed\n`).problems).toEqual([
      expect.stringMatching(/^line 2: not an EVM address/),
      expect.stringMatching(/^line 3: not an EVM address .*EIP-55/),
    ]);
  });

  it('is read at start-up; a bad line or a missing file stops the start', () => {
    const path = file(`${A}\n`);
    expect(loadConfig({ WITHDRAWAL_DENYLIST_FILE: path }).custody.denylist).toEqual({
      file: path,
      addresses: [A.toLowerCase()],
      reloadMs: 5000,
    });
    expect(problemsOf({ WITHDRAWAL_DENYLIST_FILE: file('0x12\n') })).toEqual([
      expect.stringMatching(/^WITHDRAWAL_DENYLIST_FILE: .* line 1: not an EVM address/),
    ]);
    expect(problemsOf({ WITHDRAWAL_DENYLIST_FILE: '/nonexistent/denylist' })).toEqual([
      'WITHDRAWAL_DENYLIST_FILE: cannot read /nonexistent/denylist (ENOENT)',
    ]);
  });
});
