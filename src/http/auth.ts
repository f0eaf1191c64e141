// One authentication layer for every route. The spec declares each operation's security:
//   []                               no credential used
//   [{}, {bearer: []}]               optional user session (caller-owned fields)
//   [{bearer: []}]                   user session required
//   [{marketMakerBearer: []}]        market-maker session (from the WebSocket handshake)
//   [{operatorBearer: []}]           an operator account (OPERATOR_TOKEN or OPERATOR_TOKENS_FILE)
import { timingSafeEqual } from 'node:crypto';
import { Forbidden, InvalidSession, Unauthorized } from '../domain/errors.js';

export type Principal =
  | { kind: 'user'; userId: string; sessionId: string; address: string }
  | { kind: 'market_maker'; walletAddress: string; sessionId: string }
  | { kind: 'operator'; name: string };

export type Auth = Principal | { kind: 'anonymous' };

/**
 * Resolves a presented bearer token to who it belongs to, or null when it is unknown, revoked or expired.
 * `operatorDisabled`: OPERATOR_TOKEN is unset, so operator-only routes refuse every request and say why.
 */
export type TokenResolver = ((token: string) => Promise<Principal | null>) & { operatorDisabled?: boolean };

export const OPERATOR_API_DISABLED =
  'the operator API is disabled on this deployment: neither OPERATOR_TOKEN nor OPERATOR_TOKENS_FILE is set, so /v1/admin routes accept no token; ' +
  'set OPERATOR_TOKEN (at least 16 characters) or OPERATOR_TOKENS_FILE in the service environment, restart it and send Authorization: Bearer <token>';

const SCHEME_KIND: Record<string, Principal['kind']> = {
  bearer: 'user',
  marketMakerBearer: 'market_maker',
  operatorBearer: 'operator',
};

const KIND_NAME: Record<Principal['kind'], string> = {
  user: 'a user session token',
  market_maker: 'a market-maker session token',
  operator: 'an operator token',
};

type SecurityRequirement = Record<string, string[]>;

export function bearerToken(header: string | string[] | undefined): string | undefined | null {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  const m = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(value ?? '');
  return m?.[1] ?? null; // null: present but not a bearer credential
}

const ANONYMOUS: Auth = Object.freeze({ kind: 'anonymous' });

interface Rules {
  anonymousAllowed: boolean;
  allowed: ReadonlySet<Principal['kind']>;
}
/** An operation's security requirements read once (the spec's arrays are the same objects on every request). */
const rulesSeen = new WeakMap<SecurityRequirement[], Rules>();
function rulesOf(requirements: SecurityRequirement[]): Rules {
  let rules = rulesSeen.get(requirements);
  if (!rules) {
    const allowed = new Set(
      requirements.flatMap((r) =>
        Object.keys(r)
          .map((s) => SCHEME_KIND[s])
          .filter((k) => k !== undefined),
      ),
    );
    rules = { anonymousAllowed: requirements.some((r) => Object.keys(r).length === 0), allowed };
    rulesSeen.set(requirements, rules);
  }
  return rules;
}

export async function authenticate(
  security: SecurityRequirement[] | undefined,
  authorization: string | string[] | undefined,
  resolve: TokenResolver,
): Promise<Auth> {
  const requirements = security ?? [];
  if (requirements.length === 0) return ANONYMOUS;
  const { anonymousAllowed, allowed } = rulesOf(requirements);
  if (resolve.operatorDisabled && !anonymousAllowed && allowed.size === 1 && allowed.has('operator')) {
    throw new Unauthorized(OPERATOR_API_DISABLED);
  }
  const token = bearerToken(authorization);
  if (token === undefined) {
    if (anonymousAllowed) return ANONYMOUS;
    throw new Unauthorized();
  }
  if (token === null) throw new InvalidSession('the Authorization header is not of the form "Bearer <token>"');
  const principal = await resolve(token);
  if (!principal) throw new InvalidSession();
  if (!allowed.has(principal.kind)) {
    const wanted = [...allowed].map((k) => KIND_NAME[k]).join(' or ');
    throw new Forbidden(`this route takes ${wanted}; ${KIND_NAME[principal.kind]} is not accepted here`);
  }
  return principal;
}

/** Constant-time comparison of two SHA-256 digests: it leaks neither the secret nor its length. */
export const sameDigest = (presented: Buffer, secret: Buffer): boolean => timingSafeEqual(presented, secret);
