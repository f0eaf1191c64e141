// Floors and ceilings of `bench:rfq`, measured in the same run as the service figures they sit next to:
// signature checks as the service does them (typed-data hash + native recovery, this process), reserve- and fill-shaped write transactions as plain SQL
// (sequential: latency floors; K clients in a closed loop: the throughput ceiling), one bus hop.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createBus } from '../../src/bus/create.js';
import { orderTypedData, verifyOrderSignature, type RfqDomain, type RfqOrderJson } from '../../src/domain/rfq/typed-data.js';
import { TEST_REDIS_URL, uniquePrefix } from '../../src/testing/postgres.js';
import { boxCpu, boxSnapshot, type BoxSnapshot } from './box-cpu.js';
import { ms, stats, type Backend } from './rfq-common.js';

const WARM = 20;

/** Sequential signature checks of one signed order (verifyOrderSignature: hash + native recovery): latency stats and the rate of one core. */
export async function recoveries(domain: RfqDomain, order: RfqOrderJson, n: number) {
  const taker = privateKeyToAccount(generatePrivateKey());
  const signed = { ...order, taker: taker.address };
  const signature = await taker.signTypedData(orderTypedData(domain, signed));
  const rec: number[] = [];
  for (let i = 0; i < n + WARM; i++) {
    const t0 = process.hrtime.bigint();
    if (!verifyOrderSignature(domain, signed, signature).ok) throw new Error('the bench order does not verify');
    if (i >= WARM) rec.push(ms(t0, process.hrtime.bigint()));
  }
  const totalMs = rec.reduce((s, x) => s + x, 0);
  return { stats: stats(rec), perSecond: (1000 * rec.length) / totalMs };
}

/** Tables the SQL floors write to: one balance row per party, a log of created rows. */
async function prepare(p: pg.Pool, parties: number) {
  await p.query(`create table if not exists bench_floor (id int primary key, n bigint not null);
    create table if not exists bench_floor_log (id uuid primary key, at bigint not null)`);
  await p.query('insert into bench_floor select g, 0 from generate_series(1, $1::int) g on conflict do nothing', [parties]);
}

/** A reserve-shaped transaction: lock the taker row, update it, insert the RFQ. */
async function reserveTx(c: pg.PoolClient, taker: number) {
  await c.query('begin');
  await c.query('select n from bench_floor where id = $1 for update', [taker]);
  await c.query('update bench_floor set n = n + 1 where id = $1', [taker]);
  await c.query('insert into bench_floor_log values ($1, $2)', [randomUUID(), Date.now()]);
  await c.query('commit');
}

/** A fill-shaped transaction: lock the taker and maker rows (in id order), update both, insert the position. */
async function fillTx(c: pg.PoolClient, taker: number, maker: number) {
  await c.query('begin');
  await c.query('select n from bench_floor where id = any($1::int[]) order by id for update', [[taker, maker]]);
  await c.query('update bench_floor set n = n + 1 where id = $1', [taker]);
  await c.query('update bench_floor set n = n - 1 where id = $1', [maker]);
  await c.query('insert into bench_floor_log values ($1, $2)', [randomUUID(), Date.now()]);
  await c.query('commit');
}

/** Sequential latency of the reserve-shaped and the fill-shaped transaction (the floors of a create and a close). */
export async function txFloors(dbUrl: string, n: number) {
  const p = new pg.Pool({ connectionString: dbUrl, max: 1 });
  const reserve: number[] = [];
  const fill: number[] = [];
  try {
    await prepare(p, 2);
    const c = await p.connect();
    try {
      for (let i = 0; i < n + WARM; i++) {
        let t0 = process.hrtime.bigint();
        await reserveTx(c, 1);
        if (i >= WARM) reserve.push(ms(t0, process.hrtime.bigint()));
        t0 = process.hrtime.bigint();
        await fillTx(c, 1, 2);
        if (i >= WARM) fill.push(ms(t0, process.hrtime.bigint()));
      }
    } finally {
      c.release();
    }
  } finally {
    await p.end();
  }
  return { reserve: stats(reserve), fill: stats(fill) };
}

/**
 * The writes of one best-mode fill as plain SQL: reserve tx, the quote insert (one per maker that quotes),
 * fill tx; `clients` takers in a closed loop against `makers` maker rows for `durationMs`. Fills per second.
 */
export async function sqlFillsPerSecond(dbUrl: string, clients: number, makers: number, quotesPerRfq: number, durationMs: number) {
  const p = new pg.Pool({ connectionString: dbUrl, max: clients });
  let fills = 0;
  let box0: BoxSnapshot | undefined;
  try {
    await prepare(p, clients + makers);
    box0 = boxSnapshot();
    const end = Date.now() + durationMs;
    await Promise.all(
      Array.from({ length: clients }, async (_, k) => {
        const c = await p.connect();
        try {
          for (let i = 0; Date.now() < end; i++) {
            await reserveTx(c, makers + 1 + k);
            for (let q = 0; q < quotesPerRfq; q++) await c.query('insert into bench_floor_log values ($1, $2)', [randomUUID(), Date.now()]);
            await fillTx(c, makers + 1 + k, 1 + (i % makers));
            fills++;
          }
        } finally {
          c.release();
        }
      }),
    );
  } finally {
    await p.end();
  }
  /** Every process's CPU over the run: what the same writes cost the box without the service. */
  return { perSecond: fills / (durationMs / 1000), fills, box: boxCpu(box0!, boxSnapshot(), {}) };
}

/** Publish -> delivery at another bus instance, sequentially. */
export async function busHop(dbUrl: string, mode: Backend, n: number) {
  const prefix = uniquePrefix('benchrfqhop');
  const urls = mode === 'redis' ? { redisUrl: TEST_REDIS_URL } : { databaseUrl: dbUrl };
  const a = await createBus({ prefix, ...urls });
  const b = await createBus({ prefix, ...urls });
  const hop: number[] = [];
  try {
    let got: (() => void) | null = null;
    b.subscribe('rfq.quote', () => got?.());
    for (let i = 0; i < n + WARM; i++) {
      const arrived = new Promise<void>((r) => (got = r));
      const t0 = process.hrtime.bigint();
      await a.publish('rfq.quote', { rfqId: randomUUID() });
      await arrived;
      if (i >= WARM) hop.push(ms(t0, process.hrtime.bigint()));
    }
  } finally {
    await a.close();
    await b.close();
  }
  return stats(hop);
}
