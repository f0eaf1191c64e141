// The market-maker WebSocket client (spec/asyncapi.yaml): authenticates with a signed challenge, answers every `ping` with a `pong`,
// and when a connection closes (session expiry after AUTH_EXPIRED, a restart, a network failure) reconnects with exponential backoff
// and a fresh challenge. It stops for good (MarketMakerGoneError) when retrying cannot help: the market maker was removed (close 4004)
// or its wallet was never registered (`unknown_market_maker`). Message types come from generated/asyncapi/types.ts; the client is
// generic over the unions it receives (In) and sends (Out). subscribe() (re-sent after every reconnect), quote() (signs the EIP-712
// Quote), cancelQuote(), setMmp() and resetMmp() resolve with their answer, matched first in, first out (frames are answered in order).
import WebSocket from 'ws';
import type {
  ClientMessage,
  MmpStatusMessage,
  QuoteAckMessage,
  ServerMessage,
  SubscribedMessage,
} from '../../../generated/asyncapi/types.ts';
import { DEFAULT_RFQ_DOMAIN, signedQuoteMessage } from '../maker.ts';
import { DEFAULT_AUTH_DOMAIN, signAuthChallenge } from './auth.ts';
import { stream, TypedEmitter, type Listener } from './emitter.ts';
import { PendingRequests, type AnswerType } from './requests.ts';
import { closeSocket } from './socket.ts';
import {
  CLOSE_CODES,
  MarketMakerGoneError,
  type MarketMakerClientEvents,
  type MarketMakerClientOptions,
  type MarketMakerSession,
  type Message,
  type MmpLimits,
  type MessageOf,
  type QuoteRequest,
  type ResolvedClientOptions,
  type SubscribeFilters,
  RFQ_EVENTS,
} from './types.ts';

export class MarketMakerClient<In extends Message = ServerMessage, Out extends Message = ClientMessage> extends TypedEmitter<
  MarketMakerClientEvents<In>
> {
  #session: MarketMakerSession | null = null;
  #ws: WebSocket | null = null;
  #stopped = true;
  #failures = 0;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #goneError: MarketMakerGoneError | null = null;
  /** Called by stop() and when giving up: ends the messages() iterators. */
  readonly #onEnd = new Set<() => void>();
  readonly #opts: ResolvedClientOptions;
  /** The filters of the last subscribe(), re-sent after each authentication. */
  #subscription: SubscribeFilters | null = null;
  /** Requests of the current connection waiting for their answer, oldest first. */
  readonly #pending: PendingRequests;

  constructor(options: MarketMakerClientOptions) {
    super();
    this.#opts = {
      authDomain: DEFAULT_AUTH_DOMAIN,
      reconnect: true,
      minBackoffMs: 250,
      maxBackoffMs: 30_000,
      answerPings: true,
      rfqDomain: DEFAULT_RFQ_DOMAIN,
      requestTimeoutMs: 10_000,
      ...options,
    };
    this.#pending = new PendingRequests(this.#opts.requestTimeoutMs);
  }

  get address(): string {
    return this.#opts.account.address;
  }

  /** The current session (null while connecting or disconnected). */
  get session(): MarketMakerSession | null {
    return this.#session;
  }

  /** The MarketMakerGoneError the client stopped with, if it did. */
  get goneError(): MarketMakerGoneError | null {
    return this.#goneError;
  }

  /** WebSocket readyState of the current connection (0 connecting, 1 open, 2 closing, 3 closed). */
  get readyState(): number {
    return this.#ws?.readyState ?? WebSocket.CLOSED;
  }

  /** Connects (and keeps reconnecting until stop(), or until it gives up). */
  start(): this {
    this.#stopped = false;
    this.#goneError = null;
    this.#connect();
    return this;
  }

  /** Resolves with the next session (or the current one); rejects after timeoutMs or when the client gives up. */
  waitForSession(timeoutMs = 10_000, { fresh = false } = {}): Promise<MarketMakerSession> {
    if (this.#session && !fresh) return Promise.resolve(this.#session);
    if (this.#goneError) return Promise.reject(this.#goneError);
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.off('session', onSession).off('gave_up', onGone);
      };
      const onSession = (s: MarketMakerSession) => (done(), resolve(s));
      const onGone = (e: MarketMakerGoneError) => (done(), reject(e));
      const timer = setTimeout(() => (done(), reject(new Error(`no market-maker session within ${timeoutMs} ms`))), timeoutMs);
      this.on('session', onSession).on('gave_up', onGone);
    });
  }

  /** Calls listener with every received message of this type; returns the unsubscribe function. */
  onMessage<T extends In['type']>(type: T, listener: Listener<MessageOf<In, T>>): () => void {
    const filter = (frame: In) => frame.type === type && listener(frame as MessageOf<In, T>);
    this.on('frame', filter);
    return () => void this.off('frame', filter);
  }

  /** The next received message of this type. */
  nextMessage<T extends In['type']>(type: T, timeoutMs = 10_000): Promise<MessageOf<In, T>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => (off(), reject(new Error(`no ${type} message within ${timeoutMs} ms`))), timeoutMs);
      const off = this.onMessage(type, (m) => (clearTimeout(timer), off(), resolve(m)));
    });
  }

  /** Every received message, from now until stop() or giving up (for `for await`; may be called before start()). */
  messages(): AsyncGenerator<In, void, undefined> {
    const listen = (push: (f: In) => void) => (this.on('frame', push), () => void this.off('frame', push));
    return stream(listen, this.#onEnd);
  }

  /** Sends a message of the AsyncAPI document on the open connection; throws when none is open. */
  send(message: Out): void {
    const ws = this.#ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) throw new Error(`cannot send ${message.type}: the connection is not open`);
    ws.send(JSON.stringify(message));
  }

  /**
   * Receive RFQs (the `rfq` event) for these assets and durations (omitted = all). Replaces the previous
   * filters, and is re-sent after every reconnect. Resolves with the effective filters (`subscribed`); when
   * not authenticated yet, with those of the next authentication.
   */
  subscribe(filters: SubscribeFilters = {}): Promise<SubscribedMessage> {
    this.#subscription = { ...filters };
    if (!this.#session) return this.nextEvent('subscribed', this.#opts.requestTimeoutMs);
    return this.#request({ type: 'subscribe', ...filters }, 'subscribed') as Promise<SubscribedMessage>;
  }

  /**
   * Sends a firm quote, signed with the account (EIP-712 `Quote`, domain `rfqDomain`), and resolves with its
   * `quote_ack`: `accepted` means recorded and live, not filled (the `quote_result` event says how it ends).
   * Rejects with a MarketMakerRequestError when the service answers `error` (e.g. not_authenticated).
   */
  async quote(q: QuoteRequest): Promise<QuoteAckMessage> {
    const message = await signedQuoteMessage(this.#opts.account, this.#opts.rfqDomain, q);
    return this.#request(message, 'quote_ack') as Promise<QuoteAckMessage>;
  }

  /** Cancels your live quote; resolves with the `quote_ack` (accepted, or error `quote_not_live`). */
  cancelQuote(rfqId: string, quoteId: string): Promise<QuoteAckMessage> {
    return this.#request({ type: 'quote_cancel', rfq_id: rfqId, quote_id: quoteId }, 'quote_ack') as Promise<QuoteAckMessage>;
  }

  /** Sets market-maker protection (`mmp_set`: fills and liability per interval); resolves with its `mmp_status`. */
  setMmp(limits: MmpLimits): Promise<MmpStatusMessage> {
    return this.#request({ type: 'mmp_set', ...limits }, 'mmp_status') as Promise<MmpStatusMessage>;
  }

  /** Clears a protection trip (`mmp_reset`); resolves with its `mmp_status`. */
  resetMmp(): Promise<MmpStatusMessage> {
    return this.#request({ type: 'mmp_reset' }, 'mmp_status') as Promise<MmpStatusMessage>;
  }

  #request(message: { type: string; [field: string]: unknown }, answer: AnswerType): Promise<ServerMessage> {
    return this.#pending.send(this.#ws, message, answer);
  }
  /** Closes the connection (1000) and stops reconnecting. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    for (const end of [...this.#onEnd]) end();
    const ws = this.#ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await closeSocket(ws, 'client stopping');
  }

  #log(msg: string, fields?: Record<string, unknown>) {
    this.#opts.log?.(msg, fields);
  }

  /** Stops for good (no more reconnects) and says why, once. */
  #giveUp(error: MarketMakerGoneError) {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#goneError = error;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#log('giving up', { reason: error.message });
    this.emit('gave_up', error);
    for (const end of [...this.#onEnd]) end();
  }

  #connect() {
    const ws = new WebSocket(this.#opts.url);
    this.#ws = ws;
    this.#session = null;
    ws.on('open', () => {
      this.#log('connected; asking for a challenge', { url: this.#opts.url });
      ws.send(JSON.stringify({ type: 'auth' }));
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let frame: In;
      try {
        frame = JSON.parse(data.toString()) as In;
      } catch {
        return;
      }
      if (typeof frame !== 'object' || frame === null || typeof frame.type !== 'string') return;
      this.emit('frame', frame);
      void this.#onFrame(ws, frame as unknown as ServerMessage);
    });
    ws.on('unexpected-response', (_req, res) => {
      this.#log('upgrade refused', { status: res.statusCode });
      ws.terminate();
    });
    ws.on('error', (err) => this.#log('connection error', { error: err.message }));
    ws.on('close', (code, reasonBuf) => {
      const reason = reasonBuf.toString();
      this.#session = null;
      this.#pending.failAll(code);
      this.emit('close', { code, reason });
      this.#log('connection closed', { code, reason });
      if (code === CLOSE_CODES.removed) {
        this.#giveUp(MarketMakerGoneError.removed(this.address, code, reason));
      }
      if (this.#stopped || !this.#opts.reconnect) return;
      const attempt = ++this.#failures;
      const base = Math.min(this.#opts.maxBackoffMs, this.#opts.minBackoffMs * 2 ** Math.min(attempt - 1, 16));
      const delayMs = Math.round(base / 2 + (Math.random() * base) / 2);
      this.emit('reconnecting', { delayMs, attempt });
      this.#log('reconnecting', { delay_ms: delayMs, attempt });
      this.#retryTimer = setTimeout(() => this.#connect(), delayMs);
    });
  }

  async #onFrame(ws: WebSocket, frame: ServerMessage) {
    switch (frame.type) {
      case 'auth_challenge': {
        const signature = await signAuthChallenge(this.#opts.account, this.#opts.authDomain, frame.nonce, frame.timestamp);
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'auth_response', wallet_address: this.address, signature }));
        return;
      }
      case 'auth_result':
        if (frame.success) {
          this.#failures = 0;
          this.#session = { token: String(frame.session_token), expiresAt: Number(frame.expires_at) };
          this.#log('authenticated', { expires_at: this.#session.expiresAt });
          this.emit('session', this.#session);
          if (this.#subscription) {
            this.#request({ type: 'subscribe', ...this.#subscription }, 'subscribed').catch((err: Error) =>
              this.#log('subscribe failed', { error: err.message }),
            );
          }
          return;
        }
        this.#log('authentication failed', { error: frame.error });
        this.emit('auth_failed', frame.error);
        if (frame.error === 'unknown_market_maker') {
          this.#giveUp(
            new MarketMakerGoneError(
              'unknown_market_maker',
              this.address,
              `wallet ${this.address} is not a registered market maker (unknown_market_maker); ` +
                'reconnecting cannot succeed: an operator registers it with POST /v1/admin/market-makers',
            ),
          );
          ws.close(1000, 'not registered');
        } else if (frame.error !== 'already_authenticated') ws.close(1000, 'authentication failed'); // reconnect with backoff
        return;
      case 'ping':
        if (this.#opts.answerPings && ws.readyState === WebSocket.OPEN)
          ws.send(JSON.stringify({ type: 'pong', timestamp: frame.timestamp }));
        return;
      case 'AUTH_EXPIRED':
        this.#log('session ended by the service', { expired_at_ms: frame.expired_at_ms });
        this.emit('expired', frame);
        return; // the service closes the connection next (4003: reconnect; 4004: give up)
      case 'error': {
        this.#log('the service rejected a message', { code: frame.code, message: frame.message });
        // Answers come in request order: an error while requests wait is the answer to the oldest one.
        this.#pending.error(frame.code, frame.message);
        return;
      }
      default:
        if (frame.type === 'subscribed' || frame.type === 'quote_ack' || frame.type === 'mmp_status') this.#pending.answer(frame);
        if (RFQ_EVENTS.has(frame.type)) this.emit(frame.type as 'rfq', frame as MarketMakerClientEvents['rfq']);
        return; // every message also reaches onMessage()/'frame' listeners
    }
  }
}
