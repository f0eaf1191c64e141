import type { Auth, Principal } from '../auth.js';
import { Unauthorized } from '../../domain/errors.js';

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;

/** The user of a route whose spec requires a user session (authenticate() already enforced it). */
export function requireUser(auth: Auth): UserPrincipal {
  if (auth.kind !== 'user') throw new Unauthorized();
  return auth;
}
