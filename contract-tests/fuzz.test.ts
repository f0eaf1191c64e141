// Property-based fuzzing over the whole OpenAPI document against one real service process (PostgreSQL +
// Redis): requests generated from every operation's parameter and body schemas, valid and hostile, with
// no credentials, a real user session, a market-maker session, the operator token or a garbage token.
// Every answer must be below 500 and conform to its operation's documented statuses and schemas (check.ts).
//
// Bounded: FUZZ_RUNS requests (default 1500) or FUZZ_TIME_MS (default 40 s), whichever ends first.
// Replay a failure with the seed and path it prints: FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run contract-tests/fuzz.test.ts
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';
import { MarketMakerClient } from '@contest-rfq/sdk';
import { checkErrorResponse, checkResponse, doc, operations } from './check.ts';
import { startContractService, type ContractService } from './harness.ts';
import { matchOperation, type SpecOperation } from './spec.ts';
import { EDGE_INTEGER_TEXTS, schemaArb, type Options } from './fuzz-arbitraries.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 40_000);
const PATH = process.env.FUZZ_PATH;

let svc: ContractService;
let privy: TestPrivy;
let session: string;
let mmToken: string;
let mmClient: MarketMakerClient | undefined;
const known: Record<string, unknown[]> = {};
/** Known values that differ for one operation (ids it may end, kept away from the others). */
const knownByOperation: Record<string, Record<string, unknown[]>> = {};
/** status -> count, and the operations that answered 2xx at least once (printed after the run). */
const statuses = new Map<number, number>();
const succeeded = new Set<string>();

async function newSession(): Promise<{ token: string; userId: string }> {
  const res = await svc.call(
    'createSession',
    { body: { privy_token: await privy.token(`did:privy:${randomUUID()}`, randomWallet().address) } },
    { status: 200 },
  );
  const body = res.body as { session_token: string; user_id: string };
  return { token: body.session_token, userId: body.user_id };
}

beforeAll(async () => {
  privy = await createTestPrivy();
  svc = await startContractService('fuzz', { env: { ...privy.env, RATE_LIMIT_PER_MINUTE: '0', NODE_ENV: 'test' } });
  const user = await newSession();
  session = user.token;
  const handle = `fz_${randomUUID().slice(0, 8)}`;
  await svc.call('updatePreferences', { token: session, body: { handle } }, { status: 200 });
  // Two contests: entries go to `c`; voiding and resolving (which end a contest) go to `ending`, so
  // that entries keep succeeding through the run.
  const newContest = async () => {
    const body = {
      title: 'Fuzz',
      category: 'sports',
      game_type: 'lineups',
      bet_amount_micros: 1000,
      protocol_prize_pool_micros: 0,
      entry_cap: 1000,
      max_entries_per_user: 1000,
      betting_closes_ms: Date.now() + 3_600_000,
      bet_type: { kind: 'num_bets', value: 1 },
      winning_split_bps: [10000],
      markets: [
        { category: 'a', name: 'A' },
        { category: 'b', name: 'B' },
      ],
    };
    return (await svc.call('createContest', { token: svc.operatorToken, body }, { status: 201 })).body as {
      contest_id: string;
      markets: Array<{ market_id: number }>;
    };
  };
  const c = await newContest();
  const ending = await newContest();
  knownByOperation.voidContest = { id: [ending.contest_id] };
  knownByOperation.resolveMarket = { market_id: ending.markets.map((m) => m.market_id) };
  const deposit = await svc.call(
    'createDeposit',
    { token: session, body: { amount_micros: 10_000_000, idempotency_key: randomUUID() } },
    { status: 200 },
  );
  await svc.call(
    'createContestEntry',
    {
      token: session,
      pathParams: { id: c.contest_id },
      body: { picks: [{ market_id: c.markets[0]!.market_id, direction: 'up' }], idempotency_key: randomUUID() },
    },
    { status: 201 },
  );
  const wallet = randomWallet().address;
  await svc.call('createMarketMaker', { token: svc.operatorToken, body: { wallet_address: wallet, name: 'Fuzz MM' } }, { status: 201 });
  // A market-maker session from the WebSocket handshake, for the /v1/mm routes (its wallet is not a known value).
  const mmWallet = randomWallet();
  await svc.call(
    'createMarketMaker',
    { token: svc.operatorToken, body: { wallet_address: mmWallet.address, name: 'Fuzz MM 2' } },
    { status: 201 },
  );
  mmClient = new MarketMakerClient({ url: `ws://127.0.0.1:${svc.process.port}/v1/ws`, account: mmWallet, reconnect: false });
  mmToken = (await mmClient.start().waitForSession()).token;
  Object.assign(known, {
    id: [c.contest_id],
    contest_id: [c.contest_id],
    market_id: c.markets.map((m) => m.market_id),
    handle: [handle],
    user_id: [user.userId],
    operation_id: [(deposit.body as { operation_id: string }).operation_id],
    wallet_address: [wallet],
    image_id: ['default-sports', 'default-mentions'],
    asset: ['BTC', 'ETH'],
    duration_secs: [300, 900],
    window_start_ms: [Math.floor(Date.now() / 300_000) * 300_000],
    // Whole valid values for the fields a random value rarely gets right, so that writes succeed too.
    privy_token: await Promise.all([1, 2, 3].map(() => privy.token(`did:privy:${randomUUID()}`, randomWallet().address))),
    destination_address: [randomWallet().address.toLowerCase()],
    picks: c.markets.map((m) => [{ market_id: m.market_id, direction: 'up' }]),
    bet_type: [{ kind: 'num_bets', value: 1 }],
    winning_split_bps: [[10000], [6000, 4000]],
    markets: [[{ category: 'a', name: 'A' }]],
    betting_closes_ms: [Date.now() + 3_600_000],
  });
});

afterAll(async () => {
  await mmClient?.stop();
  if (svc) expect(await svc.stop()).toBe(0);
});

type Credential = 'none' | 'session' | 'operator' | 'marketMaker' | 'garbage';

interface FuzzRequest {
  operationId: string;
  credential: Credential;
  garbageToken: string;
  path: string;
  query: string;
  body: { contentType: string; data: string | Uint8Array<ArrayBuffer> } | undefined;
}

/** Percent-encodes a value for a URL; an unpaired surrogate becomes its (invalid) CESU-8 bytes. */
function encode(v: unknown): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
  return [...s]
    .map((ch) => {
      const code = ch.codePointAt(0)!;
      if (code >= 0xd800 && code <= 0xdfff)
        return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
          .map((b) => `%${b.toString(16).toUpperCase()}`)
          .join('');
      return encodeURIComponent(ch);
    })
    .join('');
}

/** Raw path segments that stay one segment on the wire (no '/', '?', '#', never '.' or '..'). */
const RAW_SEGMENTS = ['%C3%28', '%00', '%ZZ', '%', '%E0%A4%A', '%ED%A0%80', '%2F', '%3F', 'a%20b', '%FF', 'x'.repeat(3000)];

function wireArb(p: SpecOperation['parameters'][number], opts: Options): fc.Arbitrary<string> {
  const value = schemaArb(doc, p.schema, opts, p.name).map(encode);
  if (!opts.hostile) return value;
  const isInteger = JSON.stringify(p.schema).includes('"integer"');
  return fc.oneof(
    { weight: 5, arbitrary: value },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
    { weight: isInteger ? 3 : 1, arbitrary: fc.constantFrom(...EDGE_INTEGER_TEXTS).map(encode) },
  );
}

function requestArb(op: SpecOperation): fc.Arbitrary<FuzzRequest> {
  return fc.boolean().chain((hostile) => {
    const opts: Options = { hostile, known: { ...known, ...knownByOperation[op.operationId] } };
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    const path = fc.tuple(...pathParams.map((p) => wireArb(p, opts).filter((s) => s !== '' && s !== '.' && s !== '..'))).map((values) => {
      let i = 0;
      return op.path.replace(/\{[^}]+\}/g, () => values[i++]!);
    });
    const query = fc
      .tuple(
        ...queryParams.map((p) =>
          (p.required && !hostile ? wireArb(p, opts) : fc.option(wireArb(p, opts), { nil: undefined })).map((v) =>
            v === undefined ? '' : `${p.name}=${v}`,
          ),
        ),
      )
      .chain((parts) =>
        (hostile
          ? fc.option(fc.constantFrom('x=1', `${encode('\u0000')}=1`, 'limit=1&limit=2', '%ZZ=%ZZ'), { freq: 4 })
          : fc.constant(null)
        ).map((x) => [...parts, x ?? ''].filter(Boolean).join('&')),
      );
    return fc.record({
      operationId: fc.constant(op.operationId),
      credential: fc.constantFrom<Credential>('none', 'session', 'operator', 'marketMaker', 'garbage'),
      garbageToken: fc.oneof(
        fc.constantFrom('x', 'null', 'Bearer', '0'.repeat(64)),
        fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => s.replace(/[^\x21-\x7e]/g, 'a') || 'a'),
      ),
      path,
      query,
      body: bodyArb(op, opts),
    });
  });
}

function bodyArb(op: SpecOperation, opts: Options): fc.Arbitrary<FuzzRequest['body']> {
  const rb = op.requestBody;
  if (!rb) return fc.constant(undefined);
  const json = rb.content['application/json'];
  if (json) {
    const valid = schemaArb(doc, json.schema, opts).map((v) => ({ contentType: 'application/json', data: JSON.stringify(v) ?? 'null' }));
    if (!opts.hostile) return valid;
    const rawText = fc.constantFrom(
      '{',
      '[1,',
      '{"a":9223372036854775808}',
      `{"picks":[{"market_id":1e400}]}`,
      '"\\ud800"',
      '{"x":"\\u0000"}',
      '[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]',
      'x'.repeat(70_000),
    );
    return fc.oneof(
      { weight: 8, arbitrary: valid },
      { weight: 1, arbitrary: rawText.map((data) => ({ contentType: 'application/json', data })) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
  }
  const media = Object.keys(rb.content)[0]!;
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
  return fc.oneof(
    fc.constant({ contentType: media, data: png }),
    fc.uint8Array({ maxLength: 64 }).map((b) => ({ contentType: media, data: Uint8Array.from(b) })),
  );
}

async function send(r: FuzzRequest): Promise<void> {
  const op = operations.find((o) => o.operationId === r.operationId)!;
  const headers: Record<string, string> = {};
  let token: string | undefined;
  if (r.credential === 'session') token = op.operationId === 'logout' ? (await newSession()).token : session;
  if (r.credential === 'operator') token = svc.operatorToken;
  if (r.credential === 'marketMaker') token = mmToken;
  if (r.credential === 'garbage') token = r.garbageToken;
  if (token) headers.authorization = `Bearer ${token}`;
  if (r.body) headers['content-type'] = r.body.contentType;
  const url = `${svc.baseUrl}${r.path}${r.query ? `?${r.query}` : ''}`;
  const response = await fetch(url, { method: op.method, headers, body: r.body?.data, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  if (response.status < 300) succeeded.add(op.operationId);
  const where = `${op.method} ${url.slice(0, 300)} (${r.credential}) body ${String(r.body?.data ?? '').slice(0, 300)}`;
  if (response.status >= 500) throw new Error(`${response.status} for ${where}: ${text.slice(0, 500)}`);
  const pathname = new URL(url).pathname;
  const matched = matchOperation(operations, op.method, pathname);
  try {
    if (matched) checkResponse(matched.operationId, response, text);
    else checkErrorResponse(response, text, { status: response.status, code: (JSON.parse(text) as { code: string }).code });
  } catch (err) {
    throw new Error(`${where}:\n${(err as Error).message}`);
  }
}

describe('fuzzing every operation of spec/openapi.yaml', () => {
  it('no 5xx, and every answer conforms to its documented status and schema', { timeout: TIME_MS + 60_000 }, async () => {
    console.log(`fuzz: seed ${SEED}, at most ${RUNS} requests or ${TIME_MS} ms (replay: FUZZ_SEED=${SEED} [FUZZ_PATH=...])`);
    let sent = 0;
    const started = Date.now();
    const property = fc.asyncProperty(
      fc.constantFrom(...operations).chain((op) => requestArb(op)),
      async (r) => {
        sent++;
        await send(r);
      },
    );
    await fc.assert(property, { seed: SEED, path: PATH, numRuns: RUNS, interruptAfterTimeLimit: TIME_MS, endOnFailure: true });
    console.log(`fuzz: ${sent} requests in ${Date.now() - started} ms, no 5xx, all conforming`);
    console.log(`fuzz: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
    console.log(
      `fuzz: 2xx on ${succeeded.size} of ${operations.length} operations; never: ${operations
        .filter((o) => !succeeded.has(o.operationId))
        .map((o) => o.operationId)
        .join(', ')}`,
    );
    expect(sent).toBeGreaterThan(Math.min(RUNS, 200));
  });
});
