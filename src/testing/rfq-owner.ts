// A stand-in for the API process that creates an RFQ (src/ws/rfq-stream.int.test.ts, the sweeper case): it
// does what POST /v1/rfq does with the domain (createRfq in a transaction, publish after commit, arm the
// closer for the quote deadline), prints "created <rfq_id>", and waits. The test SIGKILLs it, so its timer
// never fires: only the sweeper (workers/sweep-rfqs) can close the RFQ. Settings come from the service's
// own environment (loadConfig), so both sides agree on the quote window and the signing domain.
// Input: RFQ_OWNER_INPUT = JSON CreateRfqInput.
import { randomUUID } from 'node:crypto';
import { createBus } from '../bus/create.js';
import { createRfqCloser, publishRfqEvents } from '../bus/rfq-events.js';
import { loadConfig } from '../config.js';
import { createOrm } from '../db/orm.js';
import { createRfq, type CreateRfqInput } from '../domain/rfq/api.js';
import type { RfqDeps } from '../domain/rfq/deps.js';
import { createLogger } from '../logger.js';

const config = loadConfig(process.env);
const log = createLogger('warn', { component: 'rfq-owner' });
const input = JSON.parse(process.env.RFQ_OWNER_INPUT ?? '{}') as CreateRfqInput;
const rfq: RfqDeps = { settings: { ...config.rfq, bettingCloseBufferMs: config.markets.bettingCloseBufferMs } };
const orm = await createOrm({ databaseUrl: config.databaseUrl });
const bus = await createBus({ prefix: config.queuePrefix, redisUrl: config.redisUrl, databaseUrl: config.databaseUrl });
const write = await orm.em.fork().transactional((tx) => createRfq(tx, rfq, { ...input, idempotencyKey: input.idempotencyKey ?? randomUUID() }));
await publishRfqEvents(bus, write.events, log);
const closer = createRfqCloser({ forkDb: () => orm.em.fork(), bus, rfq, log });
void closer.closeAt(write.rfq.rfq.id, write.rfq.rfq.quoteDeadlineMs);
process.stdout.write(`created ${write.rfq.rfq.id}\n`);
