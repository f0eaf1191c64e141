// Reusable steps of an RFQ trade against a running service (integration and contract tests): a funded
// taker with a known wallet, a registered market maker with collateral (SIWE sign-in + deposit) quoting
// over the WebSocket, EIP-712 orders and quotes signed with viem, and the taker's POST /v1/rfq.
import { randomBytes, randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { DEFAULT_AUTH_DOMAIN, signAuthChallenge } from '@contest-rfq/sdk';
import { orderTypedData, quoteTypedData, type RfqDomain, type RfqOrderJson } from '../domain/rfq/typed-data.js';
import type { FillMode } from '../domain/rfq/validate.js';
import {
  createDeposit,
  createMarketMaker,
  createRfq,
  createSession,
  createWalletSession,
  getAvailableBalance,
  getCurrentMarket,
  getReservedBalance,
  getRfqTypedData,
  getWalletNonce,
} from '../../generated/openapi/sdk.gen.js';
import type { CreateRfqRequest } from '../../generated/openapi/types.gen.js';
import { randomWallet, signSiwe, type JsonResponse, type TestPrivy, type TestWallet } from './identity.js';
import { sdkClient, sent } from './sdk-client.js';

export interface Party {
  wallet: TestWallet;
  token: string;
  userId: string;
}

export async function deposit(baseUrl: string, token: string, amountMicros: number): Promise<void> {
  const res = await sent(
    createDeposit({ client: sdkClient(baseUrl, token), body: { amount_micros: amountMicros, idempotency_key: randomUUID() } }),
  );
  if (res.status !== 200) throw new Error(`deposit answered ${res.status}: ${JSON.stringify(res.error ?? res.data)}`);
}

/** A user signed in through the Privy exchange whose wallet (the order signer) the test holds; funded when `fundMicros` > 0. */
export async function newTaker(baseUrl: string, privy: TestPrivy, fundMicros = 0): Promise<Party> {
  const wallet = randomWallet();
  const res = await sent(
    createSession({
      client: sdkClient(baseUrl),
      body: { privy_token: await privy.token(`did:privy:${randomBytes(10).toString('hex')}`, wallet.address) },
    }),
  );
  if (!res.data) throw new Error(`session exchange answered ${res.status}: ${JSON.stringify(res.error)}`);
  const taker = { wallet, token: res.data.session_token, userId: res.data.user_id };
  if (fundMicros > 0) await deposit(baseUrl, taker.token, fundMicros);
  return taker;
}

export async function balances(baseUrl: string, token: string): Promise<{ available: string; reserved: string }> {
  const client = sdkClient(baseUrl, token);
  const [a, r] = await Promise.all([sent(getAvailableBalance({ client })), sent(getReservedBalance({ client }))]);
  return { available: a.data!.available_micros, reserved: r.data!.reserved_micros };
}

/** The deployment's EIP-712 domain, as takers and makers fetch it. */
export async function fetchDomain(baseUrl: string): Promise<RfqDomain> {
  const res = await sent(getRfqTypedData({ client: sdkClient(baseUrl) }));
  return res.data!.domain as RfqDomain;
}

export async function currentMarketId(
  baseUrl: string,
  asset = 'BTC',
  durationSecs = 86400,
): Promise<{ marketId: number; bettingClosesAtMs: number; startAtMs: number }> {
  const res = await sent(getCurrentMarket({ client: sdkClient(baseUrl), query: { asset, duration_secs: durationSecs } }));
  if (!res.data) throw new Error(`markets/current answered ${res.status}: ${JSON.stringify(res.error)}`);
  const { market } = res.data;
  return { marketId: market.market_id, bettingClosesAtMs: market.betting_closes_at_ms, startAtMs: market.start_at_ms };
}

let nonceCounter = 0;
/** A nonce unique within this test run (the service wants one per taker). */
export const freshNonce = () => Date.now() * 1000 + (nonceCounter++ % 1000);

export function buildOrder(taker: string, legs: RfqOrderJson['legs'], over: Partial<RfqOrderJson> = {}): RfqOrderJson {
  return {
    taker,
    legs,
    stake_micros: 1_000_000,
    min_odds_bps: 15_000,
    order_type: 'FOK',
    nonce: freshNonce(),
    deadline_ms: Date.now() + 30_000,
    ...over,
  };
}

export function signOrder(wallet: TestWallet, domain: RfqDomain, order: RfqOrderJson): Promise<`0x${string}`> {
  return wallet.signTypedData(orderTypedData(domain, order));
}

export interface PostOrderOptions {
  fillMode?: FillMode;
  idempotencyKey?: string;
  /** Sign with this wallet instead of the taker's (INVALID_SIGNATURE). */
  signer?: TestWallet;
  signature?: string;
}

export async function postOrder(
  baseUrl: string,
  taker: Party,
  domain: RfqDomain,
  order: RfqOrderJson,
  opts: PostOrderOptions = {},
): Promise<JsonResponse> {
  const signature = opts.signature ?? (await signOrder(opts.signer ?? taker.wallet, domain, order));
  const body: CreateRfqRequest = { order, signature, idempotency_key: opts.idempotencyKey ?? randomUUID() };
  if (opts.fillMode) body.fill_mode = opts.fillMode;
  const res = await sent(createRfq({ client: sdkClient(baseUrl, taker.token), body }));
  // The callers read the answer as JSON, whichever status it has: the Rfq on 201, the Error otherwise.
  return { status: res.status, body: res.data ?? res.error, headers: res.response.headers };
}

// ------------------------------------------------------------------------------------- market makers

export async function registerMarketMaker(
  baseUrl: string,
  operatorToken: string,
  wallet: TestWallet = randomWallet(),
): Promise<TestWallet> {
  const res = await sent(
    createMarketMaker({
      client: sdkClient(baseUrl, operatorToken),
      body: { wallet_address: wallet.address.toLowerCase(), name: 'Test MM' },
    }),
  );
  if (res.status !== 201) throw new Error(`market-maker registration answered ${res.status}: ${JSON.stringify(res.error)}`);
  return wallet;
}

/**
 * A wallet signs in with SIWE and deposits `micros`: a maker's collateral lives in the user row of its
 * wallet; a taker can sign in the same way.
 */
export async function fundWallet(baseUrl: string, wallet: TestWallet, siweDomain: string, micros: number): Promise<Party> {
  const n = await sent(getWalletNonce({ client: sdkClient(baseUrl) }));
  const res = await sent(
    createWalletSession({ client: sdkClient(baseUrl), body: await signSiwe(wallet, { domain: siweDomain, nonce: n.data!.nonce }) }),
  );
  if (!res.data) throw new Error(`SIWE sign-in answered ${res.status}: ${JSON.stringify(res.error)}`);
  const party = { wallet, token: res.data.session_token, userId: res.data.user_id };
  if (micros > 0) await deposit(baseUrl, party.token, micros);
  return party;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- frames are read as the service sent them */
export interface QuoteParams {
  odds_bps: number;
  max_fill_micros: number;
  /** Default: 20 s from now, but no later than the RFQ's expires_at_ms (a quote may not outlive its RFQ). */
  valid_until_ms?: number;
  client_quote_id?: string;
  /** Sign with this wallet instead of the maker's (an invalid quote signature). */
  signer?: TestWallet;
  /** Sign for this domain instead of the deployment's (e.g. another salt). */
  domain?: RfqDomain;
}

export interface MakerConnection {
  wallet: TestWallet;
  /** The market-maker bearer token (auth_result.session_token), for /v1/mm/* routes. */
  token: string;
  frames: any[];
  send(frame: unknown): void;
  /** The next frame of `type` (optionally matching `where`) not consumed yet; other frames stay readable. */
  next(type: string, where?: (f: any) => boolean, timeoutMs?: number): Promise<any>;
  subscribe(filters?: { assets?: string[]; durations?: number[]; cancel_on_disconnect?: boolean }): Promise<any>;
  /** Sends a signed quote on `rfqId` and returns its quote_ack. */
  quote(rfqId: string, q: QuoteParams): Promise<any>;
  /** The signed `quote` frame, not sent. */
  signQuote(rfqId: string, q: QuoteParams): Promise<any>;
  /** Quotes every `rfq` frame that arrives from now on with `pick(frame)` (null: no quote). */
  autoQuote(pick: (rfq: any) => QuoteParams | null): void;
  close(): void;
}

export async function connectMaker(baseUrl: string, wallet: TestWallet, domain: RfqDomain): Promise<MakerConnection> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v1/ws`);
  const frames: any[] = [];
  const consumed = new Set<any>();
  const wake: Array<() => void> = [];
  let auto: ((rfq: any) => QuoteParams | null) | null = null;
  const send = (f: unknown) => ws.send(JSON.stringify(f));
  const expiresAt = new Map<string, number>();
  async function signedQuote(rfqId: string, q: QuoteParams) {
    const valid_until_ms = q.valid_until_ms ?? Math.min(Date.now() + 20_000, expiresAt.get(rfqId) ?? Infinity);
    const typed = quoteTypedData(q.domain ?? domain, {
      rfq_id: rfqId,
      maker: wallet.address,
      odds_bps: q.odds_bps,
      max_fill_micros: q.max_fill_micros,
      valid_until_ms,
    });
    const signature = await (q.signer ?? wallet).signTypedData(typed);
    return {
      type: 'quote',
      rfq_id: rfqId,
      odds_bps: q.odds_bps,
      max_fill_micros: q.max_fill_micros,
      valid_until_ms,
      ...(q.client_quote_id ? { client_quote_id: q.client_quote_id } : {}),
      signature,
    };
  }
  ws.on('message', (data) => {
    const f = JSON.parse(data.toString());
    if (f.type === 'ping') return send({ type: 'pong', ...(f.timestamp !== undefined ? { timestamp: f.timestamp } : {}) });
    frames.push(f);
    if (f.type === 'rfq') expiresAt.set(f.rfq_id, f.expires_at_ms);
    if (f.type === 'rfq' && auto) {
      const q = auto(f);
      if (q) void signedQuote(f.rfq_id, q).then(send);
    }
    wake.splice(0).forEach((w) => w());
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  async function next(type: string, where: (f: any) => boolean = () => true, timeoutMs = 10_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const f = frames.find((x) => !consumed.has(x) && x.type === type && where(x));
      if (f) {
        consumed.add(f);
        return f;
      }
      if (Date.now() > deadline) throw new Error(`no ${type} frame within ${timeoutMs} ms; got ${JSON.stringify(frames.slice(-5))}`);
      await new Promise<void>((r) => {
        wake.push(r);
        setTimeout(r, 100);
      });
    }
  }
  send({ type: 'auth' });
  const c = await next('auth_challenge');
  send({
    type: 'auth_response',
    wallet_address: wallet.address,
    signature: await signAuthChallenge(wallet, DEFAULT_AUTH_DOMAIN, c.nonce, c.timestamp),
  });
  const result = await next('auth_result');
  if (!result.success) throw new Error(`market-maker auth failed: ${result.error}`);
  return {
    wallet,
    token: result.session_token,
    frames,
    send,
    next,
    async subscribe(filters = {}) {
      send({ type: 'subscribe', ...filters });
      return next('subscribed');
    },
    signQuote: signedQuote,
    async quote(rfqId, q) {
      send(await signedQuote(rfqId, q));
      return next('quote_ack', (a) => a.rfq_id === rfqId);
    },
    autoQuote(pick) {
      auto = pick;
    },
    close: () => ws.close(),
  };
}

/** A registered, funded, connected and subscribed maker. */
export async function readyMaker(
  baseUrl: string,
  opts: { operatorToken: string; siweDomain: string; domain: RfqDomain; collateralMicros: number },
): Promise<MakerConnection & { party: Party }> {
  const wallet = await registerMarketMaker(baseUrl, opts.operatorToken);
  const party = await fundWallet(baseUrl, wallet, opts.siweDomain, opts.collateralMicros);
  const mm = await connectMaker(baseUrl, wallet, opts.domain);
  await mm.subscribe();
  return Object.assign(mm, { party });
}
