// The first step of every request, in either lane of src/http/app.ts: the request id, the client address,
// the per-request logger, and on finish the metrics and the one access line.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { accessLineWriter, unredactedTwin, type Logger } from '../logger.js';
import type { ClientAddress } from './client-address.js';
import type { HttpMetrics } from './metrics.js';
import type { LaneResponse } from './respond.js';

const UNMETERED = new Set(['getHealth', 'getReadiness', 'getMetrics']);

/** The path of an origin-form request target (what express's req.path gives for it: the part before `?` or `#`). */
export const pathOf = (url: string): string => {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
};

export type Begin = (req: IncomingMessage, res: LaneResponse) => void;

/** Request id, the per-request logger, metrics and the one access line: every request, either lane. */
export function createBegin(logger: Logger, metrics: HttpMetrics, clientAddress: ClientAddress): Begin {
  const access = accessLineWriter(unredactedTwin(logger));
  return (req, res) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    const clientIp = clientAddress(req);
    res.locals.clientIp = clientIp;
    // The request's child logger, made on first use: most requests log nothing but the access line below.
    let child: Logger | undefined;
    res.locals.logOf = () => (child ??= logger.child({ request_id: requestId }));
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const op = (res.locals.operationId as string | undefined) ?? 'unmatched';
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (!UNMETERED.has(op)) {
        metrics.requests.inc({ operation: op, method: req.method!, status: String(res.statusCode) });
        metrics.duration.observe({ operation: op, method: req.method! }, seconds);
      }
      const level = res.statusCode >= 500 ? 'error' : UNMETERED.has(op) ? 'debug' : 'info';
      // The same line as through res.locals.logOf() (request_id is its only binding), without the redaction pass.
      access(level, {
        request_id: requestId,
        client_ip: clientIp,
        method: req.method!,
        path: (req as { path?: string }).path ?? pathOf(req.url ?? '/'), // express's req.path in its lane
        operation_id: op,
        status: res.statusCode,
        duration_ms: Math.round(seconds * 1e4) / 10,
        code: res.locals.errorCode as string | undefined,
      });
    });
  };
}
