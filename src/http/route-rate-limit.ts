// The per-address rate limit of src/http/app.ts: only the operations that document 429 are limited (sign-in
// and money-moving routes), per client network.
import type { Request, Response } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import type { OpenAPIV3_1 } from 'openapi-types';
import { AppError } from '../domain/errors.js';
import { clientNetwork } from './client-address.js';

export interface RouteRateLimit {
  /** Whether the operation is limited. */
  covers(operationId: string): boolean;
  /** Counts the request; rejects with 429 RATE_LIMITED when its address is over the limit. */
  apply(req: Request, res: Response): Promise<void>;
}

/** The limit, or undefined when `perMinute` is 0 (disabled). `store`: shared counters (src/http/rate-limit-store.ts). */
export function createRouteRateLimit(
  document: OpenAPIV3_1.Document,
  perMinute: number,
  store: Store | undefined,
): RouteRateLimit | undefined {
  if (perMinute <= 0) return undefined;
  const limited = operationsDocumenting(document, '429');
  const limiter = rateLimit({
    windowMs: 60_000,
    limit: perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    ...(store ? { store } : {}),
    // Per client network (src/http/client-address.ts: the address TRUST_PROXY defines, IPv6 per /56), never req.ip.
    keyGenerator: (_req, res) => clientNetwork(res.locals.clientIp as string),
    validate: { xForwardedForHeader: false, forwardedHeader: false, trustProxy: false, keyGeneratorIpFallback: false, ip: false },
    handler: (_req, _res, next, options) => {
      const retryAfter = String(Math.ceil(options.windowMs / 1000));
      next(
        new AppError(
          429,
          'RATE_LIMITED',
          `too many requests: at most ${options.limit} a minute from one address on this route group`,
          null,
          {
            'Retry-After': retryAfter,
          },
        ),
      );
    },
  });
  return {
    covers: (operationId) => limited.has(operationId),
    apply: (req, res) =>
      new Promise<void>((resolve, reject) => {
        void limiter(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
      }),
  };
}

function operationsDocumenting(document: OpenAPIV3_1.Document, status: string): Set<string> {
  const ids = new Set<string>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const op of Object.values(item ?? {}) as Array<OpenAPIV3_1.OperationObject | undefined>) {
      if (op?.operationId && op.responses && status in op.responses) ids.add(op.operationId);
    }
  }
  return ids;
}
