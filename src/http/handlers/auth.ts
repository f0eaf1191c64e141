// Sign-in and sign-out: Privy identity-token exchange, Sign-In with Ethereum, logout.
import type { Orm } from '../../db/orm.js';
import type { CreateSessionRequest, Session, WalletNonce, WalletSessionRequest } from '../../../generated/openapi/types.gen.js';
import type { PrivyVerifier } from '../../domain/identity/privy-token.js';
import { revokeSession } from '../../domain/identity/sessions.js';
import { signInWithPrivy, signInWithWallet, type SignedIn, type SiweSettings } from '../../domain/identity/sign-in.js';
import { issueNonce } from '../../domain/identity/wallet-nonces.js';
import type { Handlers, HandlerRequest, HandlerResponse } from '../handler.js';
import { requireUser } from './principal.js';

export interface AuthDeps {
  orm: Orm;
  privy: PrivyVerifier;
  sessionTtlSeconds: number;
  siwe: Omit<SiweSettings, 'ttlSeconds'>;
}

const NO_STORE = { 'Cache-Control': 'no-store' };

function sessionResponse(req: HandlerRequest, s: SignedIn): HandlerResponse {
  // Never log the token; the session id identifies it in the logs.
  req.log.info({ user_id: s.userId, session_id: s.sessionId, method: s.method }, 'session created');
  const body: Session = { session_token: s.token, address: s.address, user_id: s.userId, expires_at: s.expiresAt };
  return { status: 200, body, headers: NO_STORE };
}

export function authHandlers(deps: AuthDeps): Handlers {
  const { orm } = deps;
  return {
    createSession: async (req) => {
      const { privy_token } = req.body as CreateSessionRequest;
      return sessionResponse(req, await signInWithPrivy(orm.em.fork(), deps.privy, privy_token, deps.sessionTtlSeconds));
    },
    getWalletNonce: async () => {
      const { nonce, expiresAt } = await issueNonce(orm.em.fork());
      const body: WalletNonce = { nonce, expires_at: expiresAt };
      return { status: 200, body, headers: NO_STORE };
    },
    createWalletSession: async (req) => {
      const { message, signature } = req.body as WalletSessionRequest;
      const settings = { ...deps.siwe, ttlSeconds: deps.sessionTtlSeconds };
      return sessionResponse(req, await signInWithWallet(orm.em.fork(), settings, message, signature));
    },
    logout: async (req) => {
      const user = requireUser(req.auth);
      await revokeSession(orm.em.fork(), user.sessionId);
      req.log.info({ user_id: user.userId, session_id: user.sessionId }, 'session revoked');
      return { status: 204 };
    },
  };
}
