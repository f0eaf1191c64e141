// Sign-in and sign-out: Privy identity-token exchange, Sign-In with Ethereum, logout.
import type { Session, WalletNonce } from '../../../generated/openapi/types.gen.js';
import type { PrivyVerifier } from '../../domain/identity/privy-token.js';
import { revokeSession } from '../../domain/identity/sessions.js';
import { signInWithPrivy, signInWithWallet, type SignedIn, type SiweSettings } from '../../domain/identity/sign-in.js';
import { issueNonce } from '../../domain/identity/wallet-nonces.js';
import { SIWE_STATEMENT } from '../../domain/identity/siwe.js';
import { NO_STORE, type HandlersFor, type RequestContext } from '../handler.js';
import { requireUser } from './principal.js';
import { InvalidIdentityToken } from '../../domain/errors.js';
import type { Bus } from '../../bus/bus.js';
import { publishContestsChanged } from '../../bus/contest-events.js';
import { publishSessionChange } from '../session-cache.js';

export interface AuthDeps {
  /** Undefined: Privy sign-in is off (production without PRIVY_*): every exchange is 401. */
  privy: PrivyVerifier | undefined;
  /**
   * A Privy sign-in refreshes the user's X handle and avatar, which boards show (`contests.changed`), and
   * may change the user's wallet (`sessions.changed`); a logout is `sessions.changed` too.
   */
  bus: Bus;
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
      const signedIn = await signInWithPrivy(ctx.db, deps.privy, body.privy_token, deps.sessionTtlSeconds);
      // A Privy sign-in may move the user to another wallet: the user's remembered sessions are dropped.
      await publishSessionChange(deps.bus, { user_id: signedIn.userId });
      await publishContestsChanged(deps.bus, null);
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
      await revokeSession(db, user.sessionId);
      // This process forgets the session before answering; the others when the bus delivers (SESSION_CACHE_MS at most).
      await publishSessionChange(deps.bus, { session_id: user.sessionId });
      log.info({ user_id: user.userId, session_id: user.sessionId, client_ip: clientIp }, 'session revoked');
      return { status: 204 };
    },
  };
}
