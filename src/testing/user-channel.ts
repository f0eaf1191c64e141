// Helpers of the user channel's integration test (src/ws/user-channel.int.test.ts; docs/user-channel.md): a raw
// WebSocket connection, the durable event log as frames, the ledger statement summed over every page, a short
// market window with betting open, the check that a frame's payload has the shape its `kind` names, and one run of a
// housekeeping job.
import type pg from 'pg';
import { expect } from 'vitest';
import { listLedgerMovements } from '../../generated/openapi/sdk.gen.js';
import type { UserEventMessage } from '../../generated/asyncapi/types.js';
import { createQueueBackend } from '../jobs/queue-backend.js';
import { QUEUE } from '../jobs/queues.js';
import { currentMarketId } from './rfq-trade.js';
import { sdkClient, sent } from './sdk-client.js';

export const wsUrl = (baseUrl: string) => `${baseUrl.replace(/^http/, 'ws')}/v1/ws`;

/** A raw connection: sends frames, collects every frame received. */
export async function rawConnection(baseUrl: string) {
  const { default: WebSocket } = await import('ws');
  const ws = new WebSocket(wsUrl(baseUrl));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- frames of every type, checked by each test
  const frames: any[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  const next = async (type: string, timeout = 10_000) => {
    await expect.poll(() => frames.find((f) => f.type === type), { timeout, interval: 20 }).toBeTruthy();
    return frames.splice(
      frames.findIndex((f) => f.type === type),
      1,
    )[0];
  };
  return { ws, frames, closed, next, send: (m: unknown) => ws.send(JSON.stringify(m)) };
}

/** The user's durable event log (user_events), as the frames the channel sends. */
export async function eventLog(sql: pg.Client, userId: string): Promise<UserEventMessage[]> {
  const r = await sql.query<{ seq: string; kind: string; at_ms: string; payload: unknown }>(
    'select seq, kind, at_ms, payload from user_events where user_id = $1 order by seq',
    [userId],
  );
  return r.rows.map(
    (x) => ({ type: 'user_event', seq: Number(x.seq), kind: x.kind, at_ms: Number(x.at_ms), payload: x.payload }) as UserEventMessage,
  );
}

/** Every page of GET /v1/users/ledger, summed: the change of each balance over the user's whole statement. */
export async function ledgerTotals(
  baseUrl: string,
  token: string,
  pageSize = 50,
): Promise<{ available: string; reserved: string; movements: number }> {
  let available = 0n;
  let reserved = 0n;
  let movements = 0;
  let cursor: string | undefined;
  do {
    const page = await sent(
      listLedgerMovements({ client: sdkClient(baseUrl, token), query: { limit: pageSize, ...(cursor ? { cursor } : {}) } }),
    );
    expect(page.status).toBe(200);
    for (const m of page.data!.movements) {
      available += BigInt(m.change.available_micros);
      reserved += BigInt(m.change.reserved_micros);
      movements++;
    }
    cursor = page.data!.next_cursor ?? undefined;
  } while (cursor);
  return { available: String(available), reserved: String(reserved), movements };
}

/** The current window of `durationSecs` once at least `minBettingMs` of its betting is left (waits for the next one otherwise). */
export async function windowWithBettingLeft(baseUrl: string, asset: string, durationSecs: number, minBettingMs: number) {
  for (;;) {
    const w = await currentMarketId(baseUrl, asset, durationSecs);
    if (w.bettingClosesAtMs - Date.now() >= minBettingMs) return w;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The key only the payload schema of each kind has (spec/asyncapi.yaml User*Event): the payload is the kind's shape. */
const KEY_OF_KIND: Record<UserEventMessage['kind'], string> = {
  balance: 'app_token_micros',
  operation: 'operation_id',
  rfq: 'close_reason',
  position: 'pnl_micros',
  contest: 'entry_id',
};
export const payloadMatchesKind = (e: UserEventMessage) =>
  Object.entries(KEY_OF_KIND).every(([kind, key]) => key in (e.payload as object) === (kind === e.kind));

/** Runs one job of the housekeeping queue on the service's own queue backend (Redis or PostgreSQL); its return value. */
export async function runHousekeepingJob(env: Record<string, string | undefined>, name: string): Promise<unknown> {
  const backend = await createQueueBackend({ prefix: env.QUEUE_PREFIX!, redisUrl: env.REDIS_URL, databaseUrl: env.DATABASE_URL });
  const queue = new backend.Queue(backend.queueName(QUEUE.housekeeping), { connection: backend.connection });
  try {
    const job = await queue.add(name, {}, { removeOnFail: true });
    await expect.poll(() => queue.getJobState(job.id!), { timeout: 30_000, interval: 100 }).toBe('completed');
    const done = await queue.getJob(job.id!);
    await done?.remove();
    return done?.returnvalue;
  } finally {
    await queue.close();
    await backend.close();
  }
}
