// Sign-in and sign-out: Privy identity-token exchange, Sign-In with Ethereum, logout.
import type { Session, WalletNonce } from '../../../generated/openapi/types.gen.js';
import type { PrivyVerifier } from '../../domain/identity/privy-token.js';
import { signInWithWallet, type SignedIn, type SiweSettings } from '../../domain/identity/sign-in.js';
import { issueNonce } from '../../domain/identity/wallet-nonces.js';
import { SIWE_STATEMENT } from '../../domain/identity/siwe.js';
import { NO_STORE, type HandlersFor, type RequestContext } from '../handler.js';
import { requireUser } from './principal.js';
import { InvalidIdentityToken } from '../../domain/errors.js';
import type { IdentityLifecycle } from '../../trading/identity-lifecycle.js';

export interface AuthDeps {
  /** Undefined: Privy sign-in is off (production without PRIVY_*): every exchange is 401. */
  privy: PrivyVerifier | undefined;
  /**
   * The identity steps that other processes hear of (src/trading/identity-lifecycle.ts): a Privy sign-in
   * (the user's wallet, X handle and avatar may change) and a logout publish after their commit.
   */
  identity: IdentityLifecycle;
  sessionTtlSeconds: number;
  siwe: Omit<SiweSettings, 'ttlSeconds'>;
  /** What GET /v1/auth/wallet/nonce tells a wallet to sign besides the nonce. */
  signIn: { uri: string; chainId: number };
}

function sessionResponse(ctx: RequestContext, s: SignedIn) {
  // Never log the token; the session id identifies it in the logs.
  ctx.log.info({ user_id: s.userId, session_id: s.sessionId, method: s.method, client_ip: ctx.clientIp }, 'session created');
  const body: Session = { session_token: s.token, address: s.address, user_id: s.userId, expires_at: s.expiresAt };
  return { status: 200, body, headers: NO_STORE } as const;
}

export function authHandlers(deps: AuthDeps): HandlersFor<'createSession' | 'getWalletNonce' | 'createWalletSession' | 'logout'> {
  return {
    createSession: async ({ body }, ctx) => {
      if (!deps.privy)
        throw new InvalidIdentityToken('Privy sign-in is not configured on this deployment; sign in with a wallet (POST /v1/auth/wallet)');
      // A Privy sign-in may move the user to another wallet: the user's remembered sessions are dropped.
      const signedIn = await deps.identity.privySignIn(ctx.db, deps.privy, body.privy_token, deps.sessionTtlSeconds);
      return sessionResponse(ctx, signedIn);
    },
    getWalletNonce: async (_req, { db }) => {
      const { nonce, expiresAt } = await issueNonce(db);
      const body: WalletNonce = {
        nonce,
        expires_at: expiresAt,
        domain: deps.siwe.domain,
        uri: deps.signIn.uri,
        version: '1',
        chain_id: deps.signIn.chainId,
        accepted_chain_ids: [...deps.siwe.chainIds],
        statement: SIWE_STATEMENT,
      };
      return { status: 200, body, headers: NO_STORE };
    },
    createWalletSession: async ({ body }, ctx) => {
      const settings = { ...deps.siwe, ttlSeconds: deps.sessionTtlSeconds };
      return sessionResponse(ctx, await signInWithWallet(ctx.db, settings, body.message, body.signature));
    },
    logout: async (_req, { db, auth, log, clientIp }) => {
      const user = requireUser(auth);
      // This process forgets the session before answering; the others when the bus delivers (SESSION_CACHE_MS at most).
      await deps.identity.logout(db, user.sessionId);
      log.info({ user_id: user.userId, session_id: user.sessionId, client_ip: clientIp }, 'session revoked');
      return { status: 204 };
    },
  };
}
