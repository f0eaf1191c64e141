// The chain-deposits queue's jobs on Redis (docs/settlement-custodial.md): BullMQ stores a job's return value as
// JSON, so a result holding a bigint (the deposit scan's cursor once did) fails the job after its credits landed,
// and the failed-job count (alert FailedJobsGrowing) climbs on every tick. Here each job of the queue runs through
// a real BullMQ queue and worker on Redis, in-process, against a local chain: every job completes, and the value
// read back from Redis equals what the processor returned.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from 'bullmq';
import { loadConfig } from '../src/config/load.js';
import { createLogger } from '../src/logger.js';
import { openRuntime, type Runtime } from '../src/runtime.js';
import { openSettlement } from '../src/domain/settlement/index.js';
import type { SettlementAdapter } from '../src/domain/settlement/adapter.js';
import type { JobOf } from '../src/jobs/job-table.js';
import { JOB, QUEUE } from '../src/jobs/queues.js';
import { startTestChain, type TestChain } from '../src/testing/chain.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../src/testing/postgres.js';
import { chainDepositsWorker } from './chain-deposits.worker.js';

const log = createLogger('silent');
let t: TestChain;
let database: TestDatabase;
let rt: Runtime;
let settlement: SettlementAdapter;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  t = await startTestChain({ confirmations: 2 });
  database = await createTestDatabase('cdredis');
  const env = {
    ...t.env,
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: uniquePrefix('cdredis'),
    LOG_LEVEL: 'silent',
  };
  rt = await openRuntime(loadConfig(env), log, { migrate: true });
  expect(rt.queues.kind).toBe('redis');
  settlement = await openSettlement(rt.config, rt.orm.em.fork(), log);
}, 120_000);
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await settlement?.close?.();
  await rt?.close();
  await database?.drop();
  await t?.stop();
});

describe('the chain-deposits jobs on Redis', () => {
  it('a scan that credits a deposit, a sweep, a cold sweep and a reconciliation: each completes and its result reads back from Redis', async () => {
    const name = rt.queues.queueName(QUEUE.chainDeposits);
    const connection = rt.queues.connection;
    const queue = new rt.queues.Queue(name, { connection });
    const events = new rt.queues.QueueEvents(name, { connection });
    const processor = chainDepositsWorker.processor({
      rt,
      log,
      me: { workerId: 'test-chain-deposits', startedAt: new Date() },
      settlement,
      stopping: new AbortController().signal,
    });
    const returned = new Map<string, unknown>();
    const worker = new rt.queues.Worker(
      name,
      async (job: Job) => {
        const value = await processor.process(job as JobOf<typeof QUEUE.chainDeposits>);
        returned.set(job.id!, value);
        return value;
      },
      { connection },
    );
    cleanups.push(
      () => worker.close(),
      () => events.close(),
      () => queue.close(),
    );
    await events.waitUntilReady();

    // A user's deposit address, the listener's cursor set before the transfer, then the transfer confirmed.
    const userId = randomUUID();
    await rt.orm.em
      .fork()
      .getConnection()
      .execute(`insert into users (id, wallet_address) values ('${userId}', '${t.faucet.address.toLowerCase()}')`);
    const { address } = await settlement.depositWallet(rt.orm.em.fork(), userId);
    const run = async (jobName: (typeof JOB)[keyof typeof JOB]) => {
      const job = await queue.add(jobName as never, { requested_at_ms: Date.now() } as never);
      await job.waitUntilFinished(events, 60_000);
      const stored = await queue.getJob(job.id!); // read back from Redis
      return { stored: stored!.returnvalue as unknown, direct: returned.get(job.id!) };
    };
    await t.anvil.mine(3); // the address's first block confirmed: the listener sets its cursor
    const first = await run(JOB.scanDeposits);
    expect(first.stored).toMatchObject({ credited: 0, cursor: expect.stringMatching(/^\d+$/) });
    const sender = await t.newWallet(10_000_000n);
    await t.transfer(sender, address as `0x${string}`, 2_500_000n);
    await t.anvil.mine(2);
    const scan = await run(JOB.scanDeposits);
    expect(scan.stored).toMatchObject({ credited: 1, cursor: expect.stringMatching(/^\d+$/) });
    expect(BigInt((scan.stored as { cursor: string }).cursor)).toBeGreaterThan(BigInt((first.stored as { cursor: string }).cursor));
    expect(scan.stored).toEqual(scan.direct);
    for (const jobName of [JOB.sweepDeposits, JOB.coldSweep, JOB.reconcileChain]) {
      const r = await run(jobName);
      expect(r.stored, jobName).toEqual(r.direct);
    }
    expect(await queue.getJobCounts('failed', 'completed')).toEqual({ failed: 0, completed: 5 });
  }, 90_000);
});
