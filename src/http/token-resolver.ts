// Who a bearer token belongs to: the deployment's OPERATOR_TOKEN, or a user / market-maker session.
import type { Em } from '../db/orm.js';
import { resolveSessionToken } from '../domain/identity/sessions.js';
import { sameSecret, type TokenResolver } from './auth.js';

export function createTokenResolver(operatorToken: string | undefined, forkDb: () => Em): TokenResolver {
  return async (token) => {
    if (operatorToken && sameSecret(token, operatorToken)) return { kind: 'operator' };
    return resolveSessionToken(forkDb(), token);
  };
}
