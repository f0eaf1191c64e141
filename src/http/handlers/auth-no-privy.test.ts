// A deployment without Privy sign-in (production with PRIVY_* unset: src/domain/identity/privy-setup.ts) answers
// every Privy token exchange 401 INVALID_IDENTITY_TOKEN, naming wallet sign-in; nothing is read or written.
import { describe, expect, it } from 'vitest';
import { authHandlers, type AuthDeps } from './auth.js';

describe('createSession without Privy sign-in', () => {
  it('is 401 INVALID_IDENTITY_TOKEN pointing at POST /v1/auth/wallet', async () => {
    const deps = { privy: undefined } as unknown as AuthDeps;
    const ctx = new Proxy(
      {},
      {
        get: () => {
          throw new Error('nothing is read');
        },
      },
    );
    const call = authHandlers(deps).createSession({ body: { privy_token: 'x.y.z' } } as never, ctx as never);
    await expect(call).rejects.toMatchObject({
      status: 401,
      code: 'INVALID_IDENTITY_TOKEN',
      message: expect.stringMatching(/POST \/v1\/auth\/wallet/),
    });
  });
});
