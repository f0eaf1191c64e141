// One context per request (mikro-orm/guide): built by the dispatcher once authentication has run and
// passed to the handler; handlers reach the database only through `db`.
import type { Em } from '../db/orm.js';
import type { Tx } from '../db/unit-of-work.js';
import type { Logger } from '../logger.js';
import type { Auth } from './auth.js';
import { NO_AUDIT, type AuditScope } from './audit-scope.js';

export interface RequestContext {
  /** This request's entity manager, forked from the ORM on first use: one per request. */
  readonly db: Em;
  readonly log: Logger;
  readonly auth: Auth;
  readonly requestId: string;
  /** The client's address (src/http/client-address.ts: the TCP peer, or X-Forwarded-For through trusted proxies). */
  readonly clientIp: string;
  /** The operator audit trail of this request (set by src/http/audit.ts); a pass-through for any other request. */
  audit: AuditScope;
}

/** The context a keyed write runs in (src/http/idempotent.ts): `db` is the key's open transaction. */
export interface TxContext extends RequestContext {
  readonly db: Tx;
}

/** `log` may be a function: the request's child logger is then made on first use (most requests never log through it). */
export function createRequestContext(
  fork: () => Em,
  parts: { log: Logger | (() => Logger); auth: Auth; requestId: string; clientIp?: string },
): RequestContext {
  return new Context(fork, parts.log, parts.auth, parts.requestId, parts.clientIp ?? 'unknown');
}

class Context implements RequestContext {
  #em: Em | undefined;
  #log: Logger | undefined;
  readonly #fork: () => Em;
  readonly #logOf: (() => Logger) | undefined;
  readonly auth: Auth;
  readonly requestId: string;
  readonly clientIp: string;
  /** Set by the dispatcher for an operator's write (src/http/audit.ts). */
  audit: AuditScope = NO_AUDIT;
  constructor(fork: () => Em, log: Logger | (() => Logger), auth: Auth, requestId: string, clientIp: string) {
    this.#fork = fork;
    this.clientIp = clientIp;
    if (typeof log === 'function') this.#logOf = log;
    else this.#log = log;
    this.auth = auth;
    this.requestId = requestId;
  }
  get db(): Em {
    return (this.#em ??= this.#fork());
  }
  get log(): Logger {
    return (this.#log ??= this.#logOf!());
  }
}
