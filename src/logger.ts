// Structured JSON logs. Credentials are redacted at the logger, so no call site can leak them.
import { pino, type Logger } from 'pino';

export type { Logger };

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  '*.session_token',
  '*.privy_token',
  '*.signature',
  'session_token',
  'privy_token',
];

export interface LoggerOptions {
  /**
   * Write to stdout asynchronously (pino's SonicBoom destination with sync: false), so a request never waits
   * for the pipe. What is buffered is written synchronously on process exit (flushLogs, and an 'exit' hook
   * for every process.exit path). Tests that read a logger's output in-process keep the synchronous default.
   */
  async?: boolean;
}

const destinations = new WeakMap<Logger, { flushSync(): void }>();
const unredacted = new WeakMap<Logger, Logger>();

/**
 * pino.stdTimeFunctions.isoTime's field, made once per millisecond: at thousands of lines a second most lines share
 * their millisecond with the line before, and toISOString was about a third of an access line's formatting.
 */
let isoMs = -1;
let isoField = '';
export function isoTime(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    isoField = `,"time":"${new Date(now).toISOString()}"`;
  }
  return isoField;
}

export function createLogger(level: string, base: Record<string, unknown> = {}, opts: LoggerOptions = {}): Logger {
  const options = {
    level,
    base: { service: 'contest-rfq-service', ...base },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  const { redact: _redact, ...plain } = options;
  if (!opts.async) {
    const logger = pino(options);
    unredacted.set(logger, pino(plain));
    return logger;
  }
  const destination = batched(pino.destination({ dest: 1, sync: false }));
  const logger = pino(options, destination);
  destinations.set(logger, destination);
  unredacted.set(logger, pino(plain, destination));
  process.once('exit', () => flushLogs(logger));
  return logger;
}

/**
 * The same logger (level, base fields, format, destination) without the redaction pass, for lines whose
 * fields are fixed by their call site and hold no credential: the one line per HTTP request (method, path,
 * operation, status, duration, error code), where redaction cost ~6% of a cached read's CPU for nothing.
 * Anything else logs through the redacting logger.
 */
export function unredactedTwin(logger: Logger): Logger {
  return unredacted.get(logger) ?? logger;
}

/** The one line per HTTP request (src/http/request-begin.ts): what it says, in this order. */
export interface AccessFields {
  request_id: string;
  client_ip: string;
  method: string;
  path: string;
  operation_id: string;
  status: number;
  duration_ms: number;
  code?: string;
}

export type AccessLevel = 'debug' | 'info' | 'error';

/**
 * Writes the access line of `logger` (its unredacted twin: fields fixed by the call site, no credential) as
 * pino would, byte for byte: the level label, the time, the logger's bindings, the fields in order (an
 * undefined `code` left out) and `"msg":"request"`, to the logger's own destination when its level is
 * enabled. Built here because it is written for every request: pino's generic serializer (walking the
 * object, a stringifier per value) was about 1.3 µs of a cached read's ~20 µs (bench:reads), the line
 * built from its known fields a fraction of that. src/logger.test.ts pins it against pino's own line.
 */
export function accessLineWriter(logger: Logger): (level: AccessLevel, f: AccessFields) => void {
  const stream = (logger as unknown as Record<symbol, { write(line: string): unknown }>)[pino.symbols.streamSym]!;
  const bindings = (logger as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? '';
  const enabled = { debug: false, info: false, error: false };
  const refresh = () => {
    for (const level of Object.keys(enabled) as AccessLevel[]) enabled[level] = logger.isLevelEnabled(level);
  };
  refresh();
  logger.on('level-change', refresh);
  return (level, f) => {
    if (!enabled[level]) return;
    stream.write(
      `{"level":"${level}"${isoTime()}${bindings},"request_id":${JSON.stringify(f.request_id)},"client_ip":${JSON.stringify(f.client_ip)},` +
        `"method":${JSON.stringify(f.method)},"path":${JSON.stringify(f.path)},"operation_id":${JSON.stringify(f.operation_id)},` +
        `"status":${f.status},"duration_ms":${f.duration_ms}${f.code === undefined ? '' : `,"code":${JSON.stringify(f.code)}`},"msg":"request"}\n`,
    );
  };
}

/** Lines are handed to the asynchronous destination at most every this many ms, as one write. */
export const LOG_BATCH_MS = 5;

/**
 * Collects lines and hands them to `boom` as one string per LOG_BATCH_MS: SonicBoom's write() costs about
 * as much per call as pino's formatting (it measures its buffer each time), and each of its writes is a
 * thread-pool round trip. One request's access line was ~8 µs of CPU written alone, ~1 µs batched (issue 14).
 * flushSync() writes what is collected, then SonicBoom's buffer, synchronously.
 */
function batched(boom: { write(s: string): boolean; flushSync(): void }) {
  let lines: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    if (lines.length === 0) return;
    const out = lines.join('');
    lines = [];
    boom.write(out);
  };
  return {
    write(line: string): boolean {
      lines.push(line);
      timer ??= setTimeout(flush, LOG_BATCH_MS).unref();
      return true;
    },
    flushSync(): void {
      if (timer) clearTimeout(timer);
      flush();
      boom.flushSync();
    },
  };
}

/** Writes out what an asynchronous logger has buffered (synchronously: safe right before process.exit). */
export function flushLogs(logger: Logger): void {
  try {
    destinations.get(logger)?.flushSync();
  } catch {
    // Nothing buffered or stdout already gone: there is nowhere left to report it.
  }
}
