// Who a bearer token belongs to: the deployment's OPERATOR_TOKEN, or a user / market-maker session.
import type { Em } from '../db/orm.js';
import { resolveSessionToken } from '../domain/identity/sessions.js';
import { sameSecret, type TokenResolver } from './auth.js';

/** With no operator token the operator API is disabled: `operatorDisabled` lets authenticate() say so. */
export function createTokenResolver(operatorToken: string | undefined, forkDb: () => Em): TokenResolver {
  const resolve = async (token: string) => {
    if (operatorToken && sameSecret(token, operatorToken)) return { kind: 'operator' } as const;
    return resolveSessionToken(forkDb(), token);
  };
  return Object.assign(resolve, { operatorDisabled: !operatorToken });
}
