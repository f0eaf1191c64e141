// The docs portal, mounted in front of the operation dispatcher (the documents it renders are operations
// of spec/openapi.yaml, served by handlers/documents.ts):
//   GET /docs      interactive API reference (Scalar) with try-it against this instance
//   GET /docs/ws   market-maker WebSocket reference (AsyncAPI React component)
//   GET /docs/assets/<name>   the bundles and start-up scripts of both pages, served from node_modules
// DOCS_ENABLED=false removes the portal (404); the documents stay, they are the partner contract.
import express, { type Request, type Response } from 'express';
import { matchesEtag } from './documents.js';
import { loadAsset } from './assets.js';
import { AppError } from '../../domain/errors.js';
import { writeError } from '../respond.js';

export interface DocsOptions {
  /** Serve /docs and /docs/ws (the documents are always served). */
  enabled: boolean;
  /** Base URL of this instance (PUBLIC_URL): its path prefixes the portal's links. */
  publicUrl: string | undefined;
}

const ASSET_CACHE = 'public, max-age=3600';
// The pages load only from this origin: a try-it request, a font or a script elsewhere is refused by the browser.
// The AsyncAPI page needs 'unsafe-eval': its parser validates the document with Ajv, which compiles code.
const pageCsp = (evalScripts: boolean) =>
  `default-src 'self'; script-src 'self'${evalScripts ? " 'unsafe-eval'" : ''}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;

export function createDocsRouter(opts: DocsOptions): express.Router {
  const prefix = opts.publicUrl ? new URL(opts.publicUrl).pathname.replace(/\/+$/, '') : '';
  const router = express.Router({ caseSensitive: true, strict: true });

  const notFound = (_req: Request, res: Response) =>
    writeError(
      res,
      new AppError(
        404,
        'NOT_FOUND',
        'the documentation portal is disabled on this deployment (DOCS_ENABLED=false); the documents stay at /openapi.json and /asyncapi.json',
      ),
    );
  if (!opts.enabled) {
    router.get(['/docs', '/docs/', '/docs/ws', '/docs/assets/:name'], notFound);
    return router;
  }

  router.get(['/docs', '/docs/'], (_req, res) => {
    res.locals.operationId = 'docsPortal';
    page(
      res,
      prefix,
      'API reference',
      'api',
      `<div id="app"></div>
<script src="${prefix}/docs/assets/scalar.js"></script>
<script src="${prefix}/docs/assets/scalar-init.js" data-spec-url="${prefix}/openapi.json" data-title="contest-rfq-service API reference"></script>`,
    );
  });
  router.get(['/docs/ws', '/docs/ws/'], (_req, res) => {
    res.locals.operationId = 'docsPortal';
    page(
      res,
      prefix,
      'Market-maker WebSocket',
      'ws',
      `<link rel="stylesheet" href="${prefix}/docs/assets/asyncapi.css">
<div id="asyncapi"></div>
<script src="${prefix}/docs/assets/asyncapi.js"></script>
<script src="${prefix}/docs/assets/asyncapi-init.js" data-spec-url="${prefix}/asyncapi.json"></script>`,
    );
  });
  router.get('/docs/assets/:name', serveAsset);
  return router;
}

/** GET /docs/assets/<name>: a bundle or start-up script, revalidated by ETag, gzipped when accepted. */
function serveAsset(req: Request<{ name: string }>, res: Response): void {
  res.locals.operationId = 'docsAsset';
  const asset = loadAsset(req.params.name);
  if (!asset) {
    writeError(res, new AppError(404, 'NOT_FOUND', `no documentation asset ${req.params.name}`));
    return;
  }
  res.setHeader('ETag', asset.etag);
  res.setHeader('Cache-Control', ASSET_CACHE);
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (matchesEtag(req.headers['if-none-match'], asset.etag)) {
    res.status(304).end();
    return;
  }
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  res.status(200).setHeader('Content-Type', asset.contentType);
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  res.end(req.method === 'HEAD' ? undefined : gzip ? asset.gzipped : asset.body);
}

/** A portal page: the navigation, then `body`; `prefix`: PUBLIC_URL's path. */
function page(res: Response, prefix: string, title: string, current: 'api' | 'ws', body: string): void {
  const link = (href: string, text: string, here: boolean) => `<a href="${prefix}${href}"${here ? ' aria-current="page"' : ''}>${text}</a>`;
  res.status(200);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('Content-Security-Policy', pageCsp(current === 'ws'));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.end(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · contest-rfq-service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${prefix}/docs/assets/portal.css">
</head>
<body>
<nav class="portal-nav">
<strong>contest-rfq-service</strong>
${link('/docs', 'HTTP API', current === 'api')}
${link('/docs/ws', 'Market-maker WebSocket', current === 'ws')}
<span class="spacer"></span>
${link('/openapi.yaml', 'openapi.yaml', false)} ${link('/openapi.json', 'openapi.json', false)}
${link('/asyncapi.yaml', 'asyncapi.yaml', false)} ${link('/asyncapi.json', 'asyncapi.json', false)}
</nav>
${body}
</body>
</html>
`);
}
