// One context per request (mikro-orm/guide): built by the dispatcher once authentication has run and
// passed to the handler; handlers reach the database only through `db`.
import type { Em } from '../db/orm.js';
import type { Logger } from '../logger.js';
import type { Auth } from './auth.js';

export interface RequestContext {
  /** This request's entity manager, forked from the ORM on first use: one per request. */
  readonly db: Em;
  readonly log: Logger;
  readonly auth: Auth;
  readonly requestId: string;
}

export function createRequestContext(fork: () => Em, parts: { log: Logger; auth: Auth; requestId: string }): RequestContext {
  let em: Em | undefined;
  return {
    ...parts,
    get db() {
      return (em ??= fork());
    },
  };
}
