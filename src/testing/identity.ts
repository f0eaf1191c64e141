// Test helpers for identity: a Privy-like key pair and token minting (the same code as
// `npm run dev:token`), a SIWE message signer, and a tiny JSON HTTP client.
import { exportSPKI, generateKeyPair, type CryptoKey } from 'jose';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { devLinkedAccounts, signIdentityToken, type IdentityTokenInput } from '../domain/identity/dev-identity.js';

export interface TestPrivy {
  appId: string;
  publicKeyPem: string;
  privateKey: CryptoKey;
  /** Env for the service under test. */
  env: { PRIVY_APP_ID: string; PRIVY_VERIFICATION_KEY: string };
  /** A token for `sub` whose embedded wallet is `wallet` (options override any claim). */
  token(sub: string, wallet: string, over?: Partial<IdentityTokenInput> & { twitter?: string; key?: CryptoKey }): Promise<string>;
}

export async function createTestPrivy(appId = 'crfq-test-app'): Promise<TestPrivy> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const publicKeyPem = await exportSPKI(publicKey);
  return {
    appId,
    publicKeyPem,
    privateKey,
    env: { PRIVY_APP_ID: appId, PRIVY_VERIFICATION_KEY: publicKeyPem },
    token: (sub, wallet, over = {}) => {
      const { twitter, key, ...claims } = over;
      return signIdentityToken(key ?? privateKey, {
        appId,
        sub,
        linkedAccounts: devLinkedAccounts(wallet, twitter ? { username: twitter } : undefined),
        ttlSeconds: 3600,
        ...claims,
      });
    },
  };
}

export function randomWallet() {
  return privateKeyToAccount(generatePrivateKey());
}

export type TestWallet = ReturnType<typeof randomWallet>;

export interface SiweInput {
  domain: string;
  nonce: string;
  chainId?: number;
  expirationTime?: Date;
  issuedAt?: Date;
}

export async function signSiwe(wallet: TestWallet, input: SiweInput): Promise<{ message: string; signature: `0x${string}` }> {
  const message = createSiweMessage({
    domain: input.domain,
    address: wallet.address,
    statement: 'Sign in to contest-rfq-service',
    uri: `http://${input.domain}`,
    version: '1',
    chainId: input.chainId ?? 8453,
    nonce: input.nonce,
    issuedAt: input.issuedAt ?? new Date(),
    ...(input.expirationTime ? { expirationTime: input.expirationTime } : {}),
  });
  return { message, signature: await wallet.signMessage({ message }) };
}

export interface JsonResponse {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read what the service sent
  headers: Headers;
}

/** A JSON HTTP call: `call(base, 'POST /v1/auth/session', {body, token})`. */
export async function call(baseUrl: string, route: string, opts: { body?: unknown; token?: string } = {}): Promise<JsonResponse> {
  const [method, path] = route.split(' ') as [string, string];
  const headers: Record<string, string> = {};
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  if (opts.token !== undefined) headers.Authorization = `Bearer ${opts.token}`;
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}
