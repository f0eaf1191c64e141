// MarketMakerClient against a scripted `ws` server: the parts the gateway integration tests cannot reach
// (a message type the AsyncAPI document does not have yet, the async iterator, backoff growth). The
// protocol itself is tested against the real service in src/ws/gateway-*.int.test.ts.
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { MarketMakerClient, type ClientMessage, type MessageOf, type ServerMessage } from '@contest-rfq/sdk';

// Messages the document does not have (a future addition): the client is typed over the extended unions as is.
type News = { type: 'news'; news_id: string };
type Watch = { type: 'watch'; channel: 'news' };

const servers: WebSocketServer[] = [];
const clients: MarketMakerClient<never, never>[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  for (const s of servers.splice(0)) s.close();
});

/** A server that authenticates anyone, then runs `then` on the connection. */
async function server(then: (ws: WebSocket, received: unknown[]) => void = () => undefined) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  servers.push(wss);
  await new Promise((r) => wss.once('listening', r));
  wss.on('connection', (ws) => {
    const received: unknown[] = [];
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as { type: string };
      received.push(m);
      if (m.type === 'auth') ws.send(JSON.stringify({ type: 'auth_challenge', nonce: 'ab'.repeat(32), timestamp: 1 }));
      if (m.type === 'auth_response') {
        ws.send(JSON.stringify({ type: 'auth_result', success: true, error: null, session_token: 't', expires_at: 2 }));
        then(ws, received);
      }
    });
  });
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, wss };
}

function client<In extends { type: string } = ServerMessage, Out extends { type: string } = ClientMessage>(url: string, opts = {}) {
  const c = new MarketMakerClient<In, Out>({ url, account: privateKeyToAccount(generatePrivateKey()), ...opts });
  clients.push(c as unknown as MarketMakerClient<never, never>);
  return c;
}

describe('MarketMakerClient', () => {
  it('is typed over the message unions: a message added to the document is onMessage/send-able', async () => {
    const received: unknown[][] = [];
    const { url } = await server((ws, r) => {
      received.push(r);
      ws.send(JSON.stringify({ type: 'news', news_id: 'r-1' }));
    });
    const c = client<ServerMessage | News, ClientMessage | Watch>(url);
    const rfq = c.nextMessage('news');
    await c.start().waitForSession();
    expectTypeOf(await rfq).toEqualTypeOf<News>();
    expect(await rfq).toEqual({ type: 'news', news_id: 'r-1' });
    c.send({ type: 'watch', channel: 'news' });
    await expect.poll(() => received[0]?.at(-1)).toEqual({ type: 'watch', channel: 'news' });
    expectTypeOf<MessageOf<ServerMessage, 'ping'>>().toHaveProperty('timestamp');
    // @ts-expect-error: the default client knows only the document's messages
    client(url).onMessage('news', () => undefined);
  });

  it('subscribe/quote/cancelQuote resolve with their answers in request order; an error rejects its request; subscribe is re-sent after a reconnect', async () => {
    const ERR = '00000000-0000-4000-8000-00000000000e';
    const CLOSE = '00000000-0000-4000-8000-00000000000c';
    let connections = 0;
    const { url } = await server((ws, received) => {
      connections += 1;
      ws.on('message', (d) => {
        const m = JSON.parse(String(d)) as { type: string; rfq_id?: string; assets?: string[] };
        if (m.type === 'subscribe') ws.send(JSON.stringify({ type: 'subscribed', assets: m.assets ?? ['BTC'], durations: [300] }));
        else if (m.rfq_id === ERR) ws.send(JSON.stringify({ type: 'error', code: 'rate_limited', message: 'slow down' }));
        else if (m.rfq_id === CLOSE) ws.close(4003, 'session expired');
        else if (m.type === 'quote' || m.type === 'quote_cancel')
          ws.send(
            JSON.stringify({
              type: 'quote_ack',
              rfq_id: m.rfq_id,
              quote_id: `q-${received.length}`,
              client_quote_id: null,
              accepted: true,
              error: null,
            }),
          );
      });
    });
    const c = client(url, { minBackoffMs: 20 });
    await c.start().waitForSession();
    expect(await c.subscribe({ assets: ['ETH'] })).toEqual({ type: 'subscribed', assets: ['ETH'], durations: [300] });
    const q = { odds_bps: 20_000, max_fill_micros: 1_000_000, valid_until_ms: 1 };
    const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
    const [a, err, b, cancel] = await Promise.allSettled([
      c.quote({ ...q, rfq_id: id(1) }),
      c.quote({ ...q, rfq_id: ERR }),
      c.quote({ ...q, rfq_id: id(2) }),
      c.cancelQuote(id(1), 'q-3'),
    ]);
    expect(a).toMatchObject({ status: 'fulfilled', value: { type: 'quote_ack', rfq_id: id(1) } });
    expect(err).toMatchObject({ status: 'rejected', reason: { name: 'MarketMakerRequestError', code: 'rate_limited' } });
    expect(b).toMatchObject({ status: 'fulfilled', value: { rfq_id: id(2) } });
    expect(cancel).toMatchObject({ status: 'fulfilled', value: { rfq_id: id(1) } });
    await expect(c.quote({ ...q, rfq_id: 'not-a-uuid' })).rejects.toThrow(TypeError); // refused before sending
    const resubscribed = new Promise((r) => c.once('subscribed', r));
    await expect(c.quote({ ...q, rfq_id: CLOSE })).rejects.toThrow(/closed/);
    expect(await resubscribed).toEqual({ type: 'subscribed', assets: ['ETH'], durations: [300] });
    expect(connections).toBe(2);
  });

  it('answers pings, and messages() yields every message until stop()', async () => {
    const pongs: unknown[] = [];
    const { url } = await server((ws) => {
      ws.on('message', (d) => String(d).includes('pong') && pongs.push(JSON.parse(String(d))));
      ws.send(JSON.stringify({ type: 'ping', timestamp: 42 }));
    });
    const c = client(url);
    const seen: string[] = [];
    const done = (async () => {
      for await (const m of c.messages()) seen.push(m.type);
    })();
    await c.start().waitForSession();
    await expect.poll(() => pongs).toEqual([{ type: 'pong', timestamp: 42 }]);
    await c.stop();
    await done;
    expect(seen).toEqual(['auth_challenge', 'auth_result', 'ping']);
  });

  it('reconnects with growing backoff and refuses send() while not connected', async () => {
    const { url, wss } = await server((ws) => ws.close(4003, 'session expired'));
    const c = client(url, { minBackoffMs: 20, maxBackoffMs: 80 });
    expect(() => c.send({ type: 'auth' })).toThrow(/not open/);
    const delays: number[] = [];
    c.on('reconnecting', ({ delayMs, attempt }) =>
      delays.push(attempt === 1 ? delayMs / 20 : delayMs / Math.min(80, 20 * 2 ** (attempt - 1))),
    );
    const sessions: string[] = [];
    c.on('session', (s) => sessions.push(s.token));
    c.start();
    await expect.poll(() => delays.length, { timeout: 5000 }).toBeGreaterThanOrEqual(4);
    for (const d of delays) expect(d >= 0.5 && d <= 1).toBe(true); // each delay in [base/2, base]
    expect(sessions.length).toBeGreaterThanOrEqual(3); // a fresh handshake each time
    wss.close();
  });
});
