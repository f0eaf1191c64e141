// The identity writes that other processes must hear of (docs/architecture.md): each step writes through the rule
// in src/domain/identity, then publishes after the commit, like the RFQ's steps (src/trading/rfq-lifecycle.ts):
//   Privy sign-in   sessions.changed {user_id}     the user's wallet may have changed: every cached session of
//                   contests.changed (all)         the user; the X handle and avatar boards show were refreshed
//   logout          sessions.changed {session_id}  this process forgets it before answering, the others when
//                                                  the bus delivers (SESSION_CACHE_MS at most)
//   handle set      contests.changed (all)         leaderboards and top participants show handles
// The HTTP handlers (src/http/handlers/auth.ts, users.ts) call these and never touch the bus.
import type { Bus } from '../bus/bus.js';
import { publishSessionChange } from '../bus/session-events.js';
import type { Em } from '../db/orm.js';
import type { PrivyVerifier } from '../domain/identity/privy-token.js';
import { revokeSession } from '../domain/identity/sessions.js';
import { signInWithPrivy, type SignedIn } from '../domain/identity/sign-in.js';
import { setHandle, type UserRecord } from '../domain/identity/users.js';
import type { ContestLifecycle } from './contest-lifecycle.js';

export interface IdentityLifecycleDeps {
  bus: Bus;
  /** Boards show handles and X accounts: a change to them is `contests.changed` for every contest. */
  contests: Pick<ContestLifecycle, 'allChanged'>;
}

export interface IdentityLifecycle {
  /** Sign in with a Privy identity token (its own writes), then publish. */
  privySignIn(em: Em, privy: PrivyVerifier, privyToken: string, ttlSeconds: number): Promise<SignedIn>;
  /** Revoke the session (idempotent), then publish. */
  logout(em: Em, sessionId: string): Promise<void>;
  /** Set the public handle (409 HANDLE_TAKEN), then publish. */
  setHandle(em: Em, userId: string, handle: string): Promise<UserRecord>;
}

export function createIdentityLifecycle(deps: IdentityLifecycleDeps): IdentityLifecycle {
  return {
    async privySignIn(em, privy, privyToken, ttlSeconds) {
      const signedIn = await signInWithPrivy(em, privy, privyToken, ttlSeconds);
      await publishSessionChange(deps.bus, { user_id: signedIn.userId });
      await deps.contests.allChanged();
      return signedIn;
    },
    async logout(em, sessionId) {
      await revokeSession(em, sessionId);
      await publishSessionChange(deps.bus, { session_id: sessionId });
    },
    async setHandle(em, userId, handle) {
      const user = await setHandle(em, userId, handle);
      await deps.contests.allChanged();
      return user;
    },
  };
}
