// The user channel client (spec/asyncapi.yaml "User channel"): any signed-in user's live account feed. It connects,
// authenticates with the user's session token (no challenge), subscribes with the seq of the last event it
// delivered, answers every `ping`, and after any disconnect reconnects with exponential backoff and resumes from that
// seq: every `user_event` is delivered once, in seq order, across reconnects to any service process. Persist
// `lastSeq` (for example after handling each event) and pass it as `sinceSeq` to resume after a restart.
// On `resync_required` it emits `resync` (read the state over HTTP) and goes on after `resume_seq`. After a logout
// (close 4005) it emits `refused` and stops.
import WebSocket from 'ws';
import type { ResyncRequiredMessage, ServerMessage, UserEventMessage } from '../../../generated/asyncapi/types.ts';
import { TypedEmitter } from './emitter.ts';
import { CLOSE_CODES } from './types.ts';

export interface UserClientOptions {
  /** `ws://host:port/v1/ws` (or `wss://`). */
  url: string;
  /** The bearer token of a user session (the sign-in routes return it). */
  sessionToken: string;
  /** The seq of the last event already processed (default 0: from the first kept event). */
  sinceSeq?: number;
  /** Reconnect after a close (default true). */
  reconnect?: boolean;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export type UserClientEvents = {
  /** One change to the account, exactly once, in seq order. */
  event: UserEventMessage;
  /** Every `user_event` frame as it arrived, before the seq guard (diagnostics). */
  frame: UserEventMessage;
  /** The missed events are not kept: read balances, operations, ledger and portfolio over HTTP. */
  resync: ResyncRequiredMessage;
  /** Subscribed (after each connect). */
  subscribed: { sinceSeq: number };
  /** Authentication refused (invalid_session_token, too_many_connections) or the session revoked (close 4005, `session_revoked`): the client stops. */
  refused: { error: string };
  close: { code: number; reason: string };
};

export class UserClient extends TypedEmitter<UserClientEvents> {
  readonly #opts: Required<UserClientOptions>;
  #ws: WebSocket | null = null;
  #lastSeq: number;
  #stopped = false;
  #failures = 0;
  #retry: NodeJS.Timeout | null = null;

  constructor(opts: UserClientOptions) {
    super();
    this.#opts = { sinceSeq: 0, reconnect: true, minBackoffMs: 250, maxBackoffMs: 10_000, ...opts };
    this.#lastSeq = this.#opts.sinceSeq;
  }

  /** The seq of the last event delivered (resume from here). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Connects (and keeps reconnecting until stop()). */
  start(): this {
    this.#stopped = false;
    this.#connect();
    return this;
  }

  /** Closes the connection (1000) and stops reconnecting. */
  stop(): void {
    this.#stopped = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#ws?.close(1000, 'client stopped');
  }

  /** Drops the connection without a close frame (tests; a network failure): the client reconnects and resumes. */
  drop(): void {
    this.#ws?.terminate();
  }

  #connect() {
    const ws = new WebSocket(this.#opts.url);
    this.#ws = ws;
    ws.on('open', () => ws.send(JSON.stringify({ type: 'auth', session_token: this.#opts.sessionToken })));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let frame: ServerMessage;
      try {
        frame = JSON.parse(data.toString()) as ServerMessage;
      } catch {
        return;
      }
      if (typeof frame === 'object' && frame !== null) this.#onFrame(ws, frame);
    });
    ws.on('error', () => undefined); // the close follows
    ws.on('close', (code, reason) => {
      if (this.#ws === ws) this.#ws = null;
      this.emit('close', { code, reason: reason.toString() });
      if (code === CLOSE_CODES.sessionRevoked && !this.#stopped) {
        // The session was revoked (logout): its token is refused from now on.
        this.#stopped = true;
        this.emit('refused', { error: 'session_revoked' });
      }
      if (this.#stopped || !this.#opts.reconnect) return;
      const attempt = ++this.#failures;
      const base = Math.min(this.#opts.maxBackoffMs, this.#opts.minBackoffMs * 2 ** Math.min(attempt - 1, 16));
      this.#retry = setTimeout(() => this.#connect(), Math.round(base / 2 + (Math.random() * base) / 2));
    });
  }

  #onFrame(ws: WebSocket, frame: ServerMessage) {
    const send = (m: object) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(m));
    switch (frame.type) {
      case 'auth_result':
        if (frame.success) return void send({ type: 'subscribe', channel: 'user', since_seq: this.#lastSeq });
        this.#stopped = true;
        this.emit('refused', { error: String(frame.error) });
        return void ws.close(1000, 'authentication refused');
      case 'subscribed':
        this.#failures = 0;
        return this.emit('subscribed', { sinceSeq: frame.since_seq ?? this.#lastSeq });
      case 'ping':
        return void send({ type: 'pong', timestamp: frame.timestamp });
      case 'user_event':
        this.emit('frame', frame);
        if (frame.seq <= this.#lastSeq) return; // already delivered (never sent by the service; kept as a guard)
        this.#lastSeq = frame.seq;
        return this.emit('event', frame);
      case 'resync_required':
        this.#lastSeq = Math.max(this.#lastSeq, frame.resume_seq);
        return this.emit('resync', frame);
      default:
        return;
    }
  }
}
