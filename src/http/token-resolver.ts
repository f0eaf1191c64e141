// Who a bearer token belongs to: an operator account (src/domain/identity/operator-accounts.ts), or a user / market-maker session
// (remembered for SESSION_CACHE_MS by src/http/session-cache.ts when a cache is given, keyed by the token:
// a process holds a token it has seen for at most that long, as it holds one in flight). On a miss the token
// is hashed once: the digest is compared with the operator accounts' and is the key sessions are stored under.
import type { Em } from '../db/orm.js';
import type { OperatorAccounts } from '../domain/identity/operator-accounts.js';
import { hashToken, liveSessionByHash, plausibleToken } from '../domain/identity/sessions.js';
import type { TokenResolver } from './auth.js';
import type { SessionCache } from './session-cache.js';

/** With no operator account source the operator API is disabled: `operatorDisabled` lets authenticate() say so. */
export function createTokenResolver(operators: OperatorAccounts, forkDb: () => Em, cache?: SessionCache): TokenResolver {
  const resolve = async (token: string) => {
    // A remembered session first: no hashing on a hit (SHA-256 cost ~8 µs of a signed-in read's ~45 µs
    // under load). The operator token is never remembered, so it always reaches the comparison below.
    const known = cache?.get(token);
    if (known) return known;
    const hash = hashToken(token);
    const operator = operators.match(hash);
    if (operator !== null) return { kind: 'operator', name: operator } as const;
    if (!plausibleToken(token)) return null;
    const generation = cache?.generation ?? 0;
    const live = await liveSessionByHash(forkDb(), hash);
    if (!live) return null;
    cache?.set(token, live, generation);
    return live.principal;
  };
  return Object.assign(resolve, { operatorDisabled: operators.disabled });
}
