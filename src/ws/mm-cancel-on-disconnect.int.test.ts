// Cancel on disconnect (docs/market-makers.md "Cancel on disconnect"): a maker that subscribes with
// cancel_on_disconnect has every live quote cancelled when that connection closes and its wallet has no
// other connection on the same process; its connection on the other process gets a quote_result cancelled
// per quote. Without the opt-in, quotes stay live. Two API processes, with Redis and with PostgreSQL only.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { acceptRfqQuote, listMakerQuotes } from '../../generated/openapi/sdk.gen.js';
import { buildOrder, postOrder, type MakerConnection, type Party } from '../testing/rfq-trade.js';
import { sdkClient, sent } from '../testing/sdk-client.js';
import { BACKENDS, useTwoProcesses, USDC } from '../testing/two-processes.js';

describe.each(BACKENDS)('cancel on disconnect (%s)', (backend) => {
  const h = useTwoProcesses('mmcod', backend);

  /** Two manual RFQs of a fresh taker, quoted by `m`: the quote acks. */
  async function quoted(m: MakerConnection, taker: Party) {
    const acks = [];
    for (let i = 0; i < 2; i++) {
      const order = buildOrder(taker.wallet.address, [{ market_id: h.markets.btc, direction: 'up' }], { stake_micros: USDC });
      const res = await postOrder(h.a.baseUrl, taker, h.domain, order, { fillMode: 'manual' });
      expect(res.status).toBe(201);
      await m.next('rfq', (f) => f.rfq_id === res.body.rfq_id);
      const ack = await m.quote(res.body.rfq_id, { odds_bps: 21_000, max_fill_micros: USDC, client_quote_id: randomUUID() });
      expect(ack.accepted).toBe(true);
      acks.push(ack);
    }
    return acks;
  }
  const live = async (token: string) =>
    (await sent(listMakerQuotes({ client: sdkClient(h.a.baseUrl, token), query: { status: 'live' } }))).data?.quotes;

  it('the opted-in connection closes: live quotes cancelled, quote_result cancelled on the other process, accept refused', async () => {
    const m = await h.maker(h.b);
    expect(await m.subscribe({ cancel_on_disconnect: true })).toMatchObject({ type: 'subscribed', cancel_on_disconnect: true });
    const elsewhere = await h.connect(h.a, m.wallet); // same wallet, the other process, no opt-in
    const taker = await h.taker();
    const acks = await quoted(m, taker);
    expect(await live(elsewhere.token)).toHaveLength(2);

    m.close();
    for (const ack of acks) {
      const r = await elsewhere.next('quote_result', (f) => f.quote_id === ack.quote_id);
      expect(r).toMatchObject({
        status: 'cancelled',
        reason: 'disconnected',
        client_quote_id: ack.client_quote_id,
        fill_stake_micros: '0',
      });
    }
    expect(await live(elsewhere.token)).toEqual([]);
    const acc = await sent(
      acceptRfqQuote({
        client: sdkClient(h.a.baseUrl, taker.token),
        path: { rfq_id: acks[0].rfq_id },
        body: { quote_id: acks[0].quote_id, idempotency_key: randomUUID() },
      }),
    );
    expect([acc.status, acc.error?.code]).toEqual([409, 'QUOTE_NOT_LIVE']);
  });

  it('without the opt-in (or with another connection of the wallet on the same process) quotes stay live', async () => {
    const m = await h.maker(h.b);
    expect(await m.subscribe({ cancel_on_disconnect: true })).toMatchObject({ cancel_on_disconnect: true });
    const sameProcess = await h.connect(h.b, m.wallet);
    const taker = await h.taker();
    await quoted(m, taker);
    m.close(); // another connection of the wallet is open on B: nothing is cancelled
    const plain = await h.maker(h.b); // default subscribe: no opt-in
    await quoted(plain, taker);
    plain.close();
    // Nothing to wait for when nothing happens: give the service time to handle both closes, then look.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await live(sameProcess.token)).toHaveLength(2);
    const plainAgain = await h.connect(h.a, plain.wallet);
    expect(await live(plainAgain.token)).toHaveLength(2);
  });
});
