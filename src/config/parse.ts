// Parsing helpers of src/config/load.ts: zod field builders and small value parsers. Reads no environment.
import { createPublicKey } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';

export const intFrom = (def: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? def);

export const csv = <T extends z.ZodType<unknown, string>>(item: T, def: string) =>
  z
    .string()
    .optional()
    .transform((v) =>
      (v ?? def)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).min(1, 'must list at least one value'));

/** `ASSET:VALUE,...` (e.g. BTC:BTCUSDT) into a map; each asset once, each value matching `value`. */
export const assetMap = (value: RegExp, def: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const out: Record<string, string> = {};
      for (const pair of (v ?? def)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const m = /^([A-Z0-9]{1,16}):(.+)$/.exec(pair);
        if (!m || !value.test(m[2]!)) ctx.addIssue({ code: 'custom', message: `not ASSET:${value.source}: ${pair}` });
        else if (out[m[1]!] !== undefined) ctx.addIssue({ code: 'custom', message: `asset ${m[1]} listed twice` });
        else out[m[1]!] = m[2]!;
      }
      return out;
    });

export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/** The web app's authority when SIWE_DOMAIN is unset: PUBLIC_URL's host, else localhost on PORT (3000 for PORT=0). */
export function defaultSiweDomain(publicUrl: string | undefined, port: number): string {
  if (publicUrl) return new URL(publicUrl).host;
  return `localhost:${port === 0 ? 3000 : port}`;
}

/** `*`, a list of lower-cased origins, or a problem (a string other than `*`). */
export function parseCorsOrigins(value: string | undefined, nodeEnv: string): '*' | string[] | string {
  if (value === undefined) return nodeEnv === 'production' ? [] : '*';
  const v = value.trim();
  if (v === '*') return '*';
  if (v.toLowerCase() === 'none') return [];
  const origins = v
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  const bad = origins.filter((o) => !/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i.test(o));
  if (bad.length) return `not origins (scheme://host[:port], no path): ${bad.join(', ')}`;
  return origins.map((o) => o.toLowerCase());
}

export function isP256PublicKeyPem(pem: string): boolean {
  if (!pem.includes('BEGIN PUBLIC KEY')) return false;
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}

/** TRUST_PROXY: whom to believe about the client address (src/http/client-address.ts). */
export type TrustProxy = { kind: 'off' } | { kind: 'hops'; hops: number } | { kind: 'cidrs'; cidrs: string[] };

/** Parses TRUST_PROXY: unset/off/false/0, a hop count (1-32), or a comma list of addresses and CIDRs. */
export function parseTrustProxy(value: string | undefined): TrustProxy | { problem: string } {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'off' || v === 'false' || v === '0') return { kind: 'off' };
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return hops >= 1 && hops <= 32 ? { kind: 'hops', hops } : { problem: 'a hop count must be 1-32' };
  }
  const cidrs = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = cidrs.filter((c) => {
    const [address, prefix, extra] = c.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || extra !== undefined) return true;
    if (prefix === undefined) return false;
    return !/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 6 ? 128 : 32);
  });
  if (bad.length) return { problem: `not an address or CIDR: ${bad.join(', ')} (use a hop count, or addresses such as 10.0.0.0/8,::1)` };
  return { kind: 'cidrs', cidrs };
}

export function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
