// The bus stays private (docs/market-makers.md "Deployments sharing a Redis server"): two deployments on
// one Redis server, databases /1 and /2, with the SAME queue prefix (the collision of the default prefix).
// Redis pub/sub ignores the database index, so before the fix each heard the other's rfq.open (taker
// wallet, stake, legs). Each deployment is a real service process with a maker connected to it.
//
// "Heard nothing" without a timer: a monitor PSUBSCRIBEd to the prefix's channels sees deployment 2's RFQ
// published; then the test publishes a fence (a well-formed rfq.open of deployment 1's scope) on deployment
// 1's channel. Redis delivers in publish order, so once deployment 1's maker has the fence it would
// already have had deployment 2's RFQ.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, uniquePrefix } from '../testing/postgres.js';
import {
  buildOrder,
  connectMaker,
  currentMarketId,
  fetchDomain,
  fundWallet,
  newTaker,
  postOrder,
  registerMarketMaker,
} from '../testing/rfq-trade.js';
import type { MakerConnection } from '../testing/rfq-trade.js';
import { startTestService, type TestService } from '../testing/test-service.js';

const PREFIX = uniquePrefix('twodep');
const services: TestService[] = [];
const makers: MakerConnection[] = [];
const monitor = new Redis(TEST_REDIS_URL, { lazyConnect: true });
const published: Array<{ channel: string; raw: string }> = [];

beforeAll(async () => {
  await monitor.connect();
  monitor.on('pmessage', (_p, channel, raw) => published.push({ channel, raw }));
  await monitor.psubscribe(`${PREFIX}_bus*`);
  for (const index of [1, 2]) {
    services.push(
      await startTestService(`twodep${index}`, { REDIS_URL: `${TEST_REDIS_URL}/${index}`, QUEUE_PREFIX: PREFIX, SIWE_DOMAIN: 'mm.test' }),
    );
  }
}, 120_000);

afterAll(async () => {
  for (const m of makers) m.close();
  for (const s of services) await s.stop();
  monitor.disconnect();
  monitorPub.disconnect();
}, 60_000);

async function connectedMaker(t: TestService): Promise<MakerConnection> {
  const wallet = await registerMarketMaker(t.svc.baseUrl, t.operatorToken);
  await fundWallet(t.svc.baseUrl, wallet, 'mm.test', 100_000_000);
  const m = await connectMaker(t.svc.baseUrl, wallet, await fetchDomain(t.svc.baseUrl));
  makers.push(m);
  await m.subscribe();
  return m;
}

async function postRfq(t: TestService): Promise<string> {
  const taker = await newTaker(t.svc.baseUrl, t.privy, 10_000_000);
  const { marketId } = await currentMarketId(t.svc.baseUrl, 'BTC', 86400);
  const order = buildOrder(taker.wallet.address, [{ market_id: marketId, direction: 'up' }]);
  const res = await postOrder(t.svc.baseUrl, taker, await fetchDomain(t.svc.baseUrl), order, { fillMode: 'manual' });
  expect(res.status).toBe(201);
  return res.body.rfq_id as string;
}

const until = async (what: string, ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!ok()) throw new Error(`${what} did not happen`);
};

/** Publishes an rfq.open envelope on `channel` with scope `d` (a copy of `like` under a new id); returns the id. */
async function publishRfq(channel: string, d: string, like: Record<string, unknown>): Promise<string> {
  const rfqId = crypto.randomUUID();
  const frame = { ...like, rfq_id: rfqId };
  await monitorPub.publish(channel, JSON.stringify({ i: 'test', t: 'rfq.open', p: { topic: 'rfq.open', frame }, d }));
  return rfqId;
}
const monitorPub = new Redis(TEST_REDIS_URL, { lazyConnect: true });
const rfqIds = (m: MakerConnection) => m.frames.filter((f) => f.type === 'rfq').map((f) => f.rfq_id as string);

describe('two deployments on one Redis server (databases /1 and /2, one prefix)', () => {
  it("each deployment's makers get its own RFQs only; the channels and envelopes are scoped to the deployment", async () => {
    await monitorPub.connect();
    const [one, two] = services as [TestService, TestService];
    const [m1, m2] = [await connectedMaker(one), await connectedMaker(two)];

    const rfq1 = await postRfq(one);
    const like = await m1.next('rfq', (f) => f.rfq_id === rfq1);
    await until('deployment 1 publishing its rfq.open', () => published.some((p) => p.raw.includes(rfq1)));
    const rfq2 = await postRfq(two);
    await m2.next('rfq', (f) => f.rfq_id === rfq2);
    await until('deployment 2 publishing its rfq.open', () => published.some((p) => p.raw.includes(rfq2)));

    const channelOf = (id: string) => published.find((p) => p.raw.includes(id))!.channel;
    expect(channelOf(rfq1)).toMatch(new RegExp(`^${PREFIX}_bus:db1/[0-9a-f]{16}$`));
    expect(channelOf(rfq2)).toMatch(new RegExp(`^${PREFIX}_bus:db2/[0-9a-f]{16}$`));
    const scope1 = (JSON.parse(published.find((p) => p.raw.includes(rfq1))!.raw) as { d: string }).d;
    expect(`${PREFIX}_bus:${scope1}`).toBe(channelOf(rfq1));

    const fence = await publishRfq(channelOf(rfq1), scope1, like);
    await m1.next('rfq', (f) => f.rfq_id === fence);
    expect(rfqIds(m1)).toEqual([rfq1, fence]);
    expect(rfqIds(m2)).toEqual([rfq2]);

    // A message on deployment 1's channel with another deployment's scope is dropped.
    const foreign = await publishRfq(channelOf(rfq1), 'db1/0000000000000000', like);
    const fence2 = await publishRfq(channelOf(rfq1), scope1, like);
    await m1.next('rfq', (f) => f.rfq_id === fence2);
    expect(rfqIds(m1)).toEqual([rfq1, fence, fence2]);
    expect(rfqIds(m1)).not.toContain(foreign);
  });
});
