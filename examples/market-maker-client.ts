// A market-maker client for the contest-rfq-service WebSocket (spec/asyncapi.yaml), in TypeScript with
// viem and ws. It authenticates, answers every ping with a pong, and when the connection closes (session
// expiry after AUTH_EXPIRED, removal, a restart of the service, a network failure) reconnects with
// exponential backoff and a fresh challenge.
//
//   MM_PRIVATE_KEY=0x... WS_URL=ws://localhost:3000/v1/ws npx tsx examples/market-maker-client.ts
//
// Optional: MM_AUTH_DOMAIN (when the deployment configured another 35-byte domain). The session token it
// prints is the bearer token for the market-maker HTTP routes, e.g.
//   curl -H "Authorization: Bearer <token>" localhost:3000/v1/mm/taker_pnl
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import type { Hex, LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

export const DEFAULT_AUTH_DOMAIN = 'contest-rfq-service market-maker v1';

/** AUTH_DOMAIN (35 ASCII bytes) || nonce (32 bytes, hex-decoded) || timestamp (uint64 little-endian). */
export function authMessageBytes(domain: string, nonceHex: string, timestamp: number | bigint): Uint8Array {
  if (domain.length !== 35 || !/^[\x00-\x7f]*$/.test(domain)) throw new Error('AUTH_DOMAIN must be 35 ASCII bytes');
  if (!/^[0-9a-fA-F]{64}$/.test(nonceHex)) throw new Error('nonce must be 64 hex characters');
  const bytes = new Uint8Array(75);
  for (let i = 0; i < 35; i++) bytes[i] = domain.charCodeAt(i);
  for (let i = 0; i < 32; i++) bytes[35 + i] = parseInt(nonceHex.slice(2 * i, 2 * i + 2), 16);
  new DataView(bytes.buffer).setBigUint64(67, BigInt(timestamp), true);
  return bytes;
}

/** The EIP-191 personal_sign signature of the 75-byte message (0x-prefixed, v = 27/28). */
export function signAuthChallenge(account: LocalAccount, domain: string, nonceHex: string, timestamp: number | bigint): Promise<Hex> {
  return account.signMessage({ message: { raw: authMessageBytes(domain, nonceHex, timestamp) } });
}

export interface MarketMakerClientOptions {
  url: string;
  account: LocalAccount;
  authDomain?: string;
  /** Reconnect after a close (default true). */
  reconnect?: boolean;
  /** First reconnect delay; doubles per failed attempt up to maxBackoffMs (with jitter). Defaults 250 / 30000. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Answer pings (default true; tests turn it off to see the service give up). */
  answerPings?: boolean;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface MarketMakerSession {
  token: string;
  /** Unix seconds. */
  expiresAt: number;
}

type Frame = { type: string; [k: string]: unknown };

/**
 * Events: 'session' (MarketMakerSession) after each successful handshake; 'auth_failed' (error code);
 * 'expired' (the AUTH_EXPIRED frame); 'frame' (every frame received); 'close' ({code, reason}) for each
 * closed connection; 'reconnecting' ({delayMs, attempt}).
 */
export class MarketMakerClient extends EventEmitter {
  session: MarketMakerSession | null = null;
  ws: WebSocket | null = null;
  private stopped = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly opts: Required<Omit<MarketMakerClientOptions, 'log'>> & Pick<MarketMakerClientOptions, 'log'>;

  constructor(options: MarketMakerClientOptions) {
    super();
    this.opts = {
      authDomain: DEFAULT_AUTH_DOMAIN,
      reconnect: true,
      minBackoffMs: 250,
      maxBackoffMs: 30_000,
      answerPings: true,
      ...options,
    };
  }

  get address(): string {
    return this.opts.account.address;
  }

  /** Connects (and keeps reconnecting until stop()). */
  start(): this {
    this.stopped = false;
    this.connect();
    return this;
  }

  /** Resolves with the next session (or the current one); rejects after timeoutMs. */
  waitForSession(timeoutMs = 10_000, { fresh = false } = {}): Promise<MarketMakerSession> {
    if (this.session && !fresh) return Promise.resolve(this.session);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('session', onSession);
        reject(new Error(`no market-maker session within ${timeoutMs} ms`));
      }, timeoutMs);
      const onSession = (s: MarketMakerSession) => {
        clearTimeout(timer);
        resolve(s);
      };
      this.once('session', onSession);
    });
  }

  /** Closes the connection (1000) and stops reconnecting. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close(1000, 'client stopping');
      setTimeout(() => {
        ws.terminate();
        resolve();
      }, 2_000).unref();
    });
  }

  private log(msg: string, fields?: Record<string, unknown>) {
    this.opts.log?.(msg, fields);
  }

  private connect() {
    const ws = new WebSocket(this.opts.url);
    this.ws = ws;
    this.session = null;
    ws.on('open', () => {
      this.log('connected; asking for a challenge', { url: this.opts.url });
      ws.send(JSON.stringify({ type: 'auth' }));
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let frame: Frame;
      try {
        frame = JSON.parse(data.toString()) as Frame;
      } catch {
        return;
      }
      this.emit('frame', frame);
      void this.onFrame(ws, frame);
    });
    ws.on('unexpected-response', (_req, res) => {
      this.log('upgrade refused', { status: res.statusCode });
      ws.terminate();
    });
    ws.on('error', (err) => this.log('connection error', { error: err.message }));
    ws.on('close', (code, reasonBuf) => {
      const reason = reasonBuf.toString();
      this.session = null;
      this.emit('close', { code, reason });
      this.log('connection closed', { code, reason });
      if (this.stopped || !this.opts.reconnect) return;
      const attempt = ++this.failures;
      const base = Math.min(this.opts.maxBackoffMs, this.opts.minBackoffMs * 2 ** Math.min(attempt - 1, 16));
      const delayMs = Math.round(base / 2 + (Math.random() * base) / 2);
      this.emit('reconnecting', { delayMs, attempt });
      this.log('reconnecting', { delay_ms: delayMs, attempt });
      this.retryTimer = setTimeout(() => this.connect(), delayMs);
    });
  }

  private async onFrame(ws: WebSocket, frame: Frame) {
    switch (frame.type) {
      case 'auth_challenge': {
        const signature = await signAuthChallenge(this.opts.account, this.opts.authDomain, String(frame.nonce), Number(frame.timestamp));
        ws.send(JSON.stringify({ type: 'auth_response', wallet_address: this.opts.account.address, signature }));
        return;
      }
      case 'auth_result':
        if (frame.success === true) {
          this.failures = 0;
          this.session = { token: String(frame.session_token), expiresAt: Number(frame.expires_at) };
          this.log('authenticated', { expires_at: this.session.expiresAt });
          this.emit('session', this.session);
        } else {
          this.log('authentication failed', { error: frame.error });
          this.emit('auth_failed', frame.error);
          if (frame.error !== 'already_authenticated') ws.close(1000, 'authentication failed'); // reconnect with backoff
        }
        return;
      case 'ping':
        if (this.opts.answerPings) ws.send(JSON.stringify({ type: 'pong', timestamp: frame.timestamp }));
        return;
      case 'AUTH_EXPIRED':
        this.log('session ended by the service; reconnecting', { expired_at_ms: frame.expired_at_ms });
        this.emit('expired', frame);
        return; // the service closes the connection next; the close handler reconnects
      case 'error':
        this.log('the service rejected a frame', { code: frame.code, message: frame.message });
        return;
      default:
        return; // forward compatibility: ignore unknown types
    }
  }
}

async function main() {
  const key = process.env.MM_PRIVATE_KEY;
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) {
    process.stderr.write('set MM_PRIVATE_KEY to the market maker\'s 0x-prefixed private key (32 bytes hex)\n');
    process.exit(2);
  }
  const client = new MarketMakerClient({
    url: process.env.WS_URL ?? 'ws://localhost:3000/v1/ws',
    account: privateKeyToAccount(key as Hex),
    authDomain: process.env.MM_AUTH_DOMAIN ?? DEFAULT_AUTH_DOMAIN,
    log: (msg, fields) => process.stdout.write(`${new Date().toISOString()} ${msg}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`),
  });
  client.on('session', (s: MarketMakerSession) => {
    process.stdout.write(`session token (bearer for /v1/mm/*, until ${new Date(s.expiresAt * 1000).toISOString()}): ${s.token}\n`);
  });
  client.start();
  const stop = () => void client.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
