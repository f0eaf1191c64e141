// The safety rules of onchain settlement's configuration (issue 33 item 8; docs/configuration.md, "Onchain
// settlement"): Circle's USDC on Base and Base Sepolia, the deposit account index of a deployment, and the
// development identity refused on a chain unless allowed.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CIRCLE_USDC, usdcAddressProblem, usdcIdentityProblem } from './usdc.js';
import { ConfigError, loadConfig } from './load.js';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const BASE_USDBC = '0xd9aAEc86B65D86f6A7B5B1b0c42FFA531710b6CA';
const SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const P256_PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
const ONCHAIN = {
  SETTLEMENT_MODE: 'onchain',
  CHAIN_RPC_URL: 'http://127.0.0.1:8545',
  USDC_ADDRESS: BASE_USDC,
  SETTLEMENT_PRIVATE_KEY: KEY,
  ALLOW_DEV_IDENTITY_ONCHAIN: 'true',
};
const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as ConfigError).problems;
  }
  return [];
};

describe("USDC_ADDRESS on Base and Base Sepolia is Circle's USDC", () => {
  it('the rule: Circle’s address (any case) passes, another token is refused unless ALLOW_UNKNOWN_USDC; other chains are free', () => {
    expect(CIRCLE_USDC).toEqual({ 8453: BASE_USDC, 84532: SEPOLIA_USDC });
    expect(usdcAddressProblem(8453, BASE_USDC.toLowerCase(), false)).toBeNull();
    expect(usdcAddressProblem(84532, SEPOLIA_USDC, false)).toBeNull();
    expect(usdcAddressProblem(8453, BASE_USDBC, false)).toMatch(/USDC_ADDRESS: on chain 8453 it must be Circle's USDC 0x8335.*USDbC/);
    expect(usdcAddressProblem(84532, BASE_USDC, false)).toMatch(/on chain 84532 it must be Circle's USDC 0x036C/);
    expect(usdcAddressProblem(8453, BASE_USDBC, true)).toBeNull();
    expect(usdcAddressProblem(31337, BASE_USDBC, false)).toBeNull();
  });

  it('loadConfig applies it', () => {
    expect(problemsOf({ ...ONCHAIN, USDC_ADDRESS: BASE_USDBC }).join('\n')).toMatch(/USDC_ADDRESS: on chain 8453/);
    expect(loadConfig({ ...ONCHAIN, USDC_ADDRESS: BASE_USDBC, ALLOW_UNKNOWN_USDC: 'true' }).chain!.usdcAddress).toBe(BASE_USDBC);
    expect(problemsOf({ ...ONCHAIN, CHAIN_ID: '84532' }).join('\n')).toMatch(/on chain 84532/);
    expect(loadConfig({ ...ONCHAIN, CHAIN_ID: '84532', USDC_ADDRESS: SEPOLIA_USDC }).chain!.chainId).toBe(84532);
    expect(loadConfig({ ...ONCHAIN, CHAIN_ID: '31337', USDC_ADDRESS: BASE_USDBC }).chain!.chainId).toBe(31337);
  });
});

describe('the token read at start-up (name, symbol, decimals)', () => {
  const usdc = { name: 'USD Coin', symbol: 'USDC', decimals: 6 };
  const usdbc = { name: 'USD Base Coin', symbol: 'USDbC', decimals: 6 };
  it("on Base and Base Sepolia must be Circle's (USDbC has 6 decimals too) unless ALLOW_UNKNOWN_USDC; 6 decimals everywhere", () => {
    expect(usdcIdentityProblem(8453, usdc, false)).toBeNull();
    expect(usdcIdentityProblem(84532, { ...usdc, name: 'USDC' }, false)).toBeNull();
    expect(usdcIdentityProblem(8453, usdbc, false)).toMatch(
      /reads name "USD Base Coin" and symbol "USDbC"; Circle's USDC reads "USD Coin" and "USDC"/,
    );
    expect(usdcIdentityProblem(84532, usdc, false)).toMatch(/Circle's USDC reads "USDC" and "USDC"/);
    expect(usdcIdentityProblem(8453, usdbc, true)).toBeNull();
    expect(usdcIdentityProblem(31337, { name: 'Test USD Coin', symbol: 'USDC', decimals: 6 }, false)).toBeNull();
    expect(usdcIdentityProblem(31337, { ...usdc, decimals: 18 }, false)).toMatch(/18 decimals; USDC has 6/);
    expect(usdcIdentityProblem(8453, { ...usdc, decimals: 18 }, true)).toMatch(/18 decimals/);
  });
});

describe('DEPOSIT_ACCOUNT_INDEX', () => {
  const prod = {
    ...ONCHAIN,
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://u@h/db',
    OPERATOR_TOKEN: 'x'.repeat(32),
    SIWE_DOMAIN: 'app.example.com',
    ALLOW_DEMO_PRICES: 'true',
    RFQ_EIP712_SALT: `0x${'11'.repeat(32)}`,
    CHAIN_MAX_FEE_PER_GAS_WEI: '1000000000',
    CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI: '1000000',
  };
  it('defaults to 0 outside production; production with DEPOSIT_MNEMONIC requires it', () => {
    expect(loadConfig({ ...ONCHAIN, DEPOSIT_MNEMONIC: MNEMONIC }).chain!.depositAccountIndex).toBe(0);
    expect(loadConfig({ ...ONCHAIN, DEPOSIT_MNEMONIC: MNEMONIC, DEPOSIT_ACCOUNT_INDEX: '7' }).chain!.depositAccountIndex).toBe(7);
    expect(loadConfig(prod).chain!.depositMnemonic).toBeUndefined();
    expect(problemsOf({ ...prod, DEPOSIT_MNEMONIC: MNEMONIC }).join('\n')).toMatch(
      /DEPOSIT_ACCOUNT_INDEX: required when NODE_ENV=production/,
    );
    expect(loadConfig({ ...prod, DEPOSIT_MNEMONIC: MNEMONIC, DEPOSIT_ACCOUNT_INDEX: '3' }).chain!.depositAccountIndex).toBe(3);
  });

  it('is a BIP-44 hardened account number', () => {
    expect(problemsOf({ ...ONCHAIN, DEPOSIT_ACCOUNT_INDEX: '2147483648' }).join('\n')).toMatch(/DEPOSIT_ACCOUNT_INDEX: must be at most/);
    expect(problemsOf({ ...ONCHAIN, DEPOSIT_ACCOUNT_INDEX: '-1' }).join('\n')).toMatch(/DEPOSIT_ACCOUNT_INDEX: must be a whole number/);
  });
});

describe('the development identity on a chain', () => {
  const { ALLOW_DEV_IDENTITY_ONCHAIN: _allowed, ...onchain } = ONCHAIN;
  it('onchain mode refuses it (Privy unset) unless ALLOW_DEV_IDENTITY_ONCHAIN=true; demo mode and Privy keys are fine', () => {
    expect(problemsOf(onchain).join('\n')).toMatch(/SETTLEMENT_MODE=onchain refuses the development identity \(DATA_DIR\/dev-privy/);
    expect(problemsOf({ ...onchain, ALLOW_DEV_IDENTITY_ONCHAIN: 'true' })).toEqual([]);
    expect(problemsOf({ ...onchain, PRIVY_APP_ID: 'app', PRIVY_VERIFICATION_KEY: P256_PEM })).toEqual([]);
    expect(problemsOf({})).toEqual([]);
  });
});
