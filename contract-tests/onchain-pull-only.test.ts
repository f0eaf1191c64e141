// An onchain deployment without DEPOSIT_MNEMONIC (pull deposits only): getDepositWallet answers `address: null`
// with the token and the spender to approve, never the settlement wallet as a place to send a plain transfer (it
// would never be credited). The response is checked against the spec.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, getDepositWallet } from '../generated/openapi/sdk.gen.ts';
import { startTestChain, type TestChain } from '../src/testing/chain.js';
import { createTestPrivy, type TestPrivy } from '../src/testing/identity.js';
import { startContractService, type ContractService } from './harness.ts';

let chain: TestChain;
let svc: ContractService;
let privy: TestPrivy;

beforeAll(async () => {
  privy = await createTestPrivy();
  chain = await startTestChain();
  const { DEPOSIT_MNEMONIC: _none, ...pullOnly } = chain.env;
  svc = await startContractService('pullonly', { env: { ...privy.env, ...pullOnly, RATE_LIMIT_PER_MINUTE: '0' } });
}, 60_000);
afterAll(async () => {
  if (svc) expect(await svc.stop()).toBe(0);
  await chain?.stop();
});

describe('onchain settlement without custodial addresses', () => {
  it('getDepositWallet 200 with address null, the token and the spender', async () => {
    const wallet = await chain.newWallet();
    const anon = svc.client();
    const { data: s } = await anon.run(
      createSession({
        client: anon.client,
        body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address) },
      }),
      { status: 200 },
    );
    const api = svc.client({ token: s!.session_token });
    const { data } = await api.run(getDepositWallet({ client: api.client }), { status: 200 });
    expect(data).toEqual({
      address: null,
      chain_id: 31337,
      asset: 'USDC',
      mode: 'onchain',
      asset_address: chain.token,
      spender_address: chain.settlement.address,
    });
  });
});
