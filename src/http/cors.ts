// CORS, so that a partner's web front-end can call the API from its own origin. Credentials are bearer
// tokens in the Authorization header, never cookies, so no Access-Control-Allow-Credentials.
//   CORS_ORIGINS unset: any origin outside production, none in production
//   CORS_ORIGINS=*: any origin; CORS_ORIGINS=https://a.example,https://b.example: those; CORS_ORIGINS=none: off
// A preflight (OPTIONS with Access-Control-Request-Method) is answered 204 on every path, before routing;
// for an origin that is not allowed the answer carries no CORS header, so the browser refuses.
import type { Request, Response, NextFunction, RequestHandler } from 'express';

export type CorsOrigins = '*' | readonly string[];

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const ALLOW_HEADERS = 'Authorization, Content-Type, If-None-Match, X-Request-Id';
const EXPOSE_HEADERS = 'X-Request-Id, ETag, Retry-After, Idempotent-Replayed, Location, RateLimit, RateLimit-Policy';
const MAX_AGE_SECONDS = '600';

export function allowedOrigin(origins: CorsOrigins, origin: string | undefined): string | undefined {
  if (!origin) return undefined;
  if (origins === '*') return '*';
  return origins.includes(origin.toLowerCase()) ? origin : undefined;
}

export function createCors(origins: CorsOrigins): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (origin === undefined) return next();
    // Answers differ by Origin whenever a list is configured: shared caches must key on it.
    if (origins !== '*') res.vary('Origin');
    const allowed = allowedOrigin(origins, origin);
    if (preflight) {
      res.locals.operationId = 'corsPreflight';
      if (allowed) {
        res.setHeader('Access-Control-Allow-Origin', allowed);
        res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
        res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
        res.setHeader('Access-Control-Max-Age', MAX_AGE_SECONDS);
      }
      res.status(204).end();
      return;
    }
    if (allowed) {
      res.setHeader('Access-Control-Allow-Origin', allowed);
      res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    }
    next();
  };
}
