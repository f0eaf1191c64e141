// `npm run drills [-- NAME...]`: fault drills on servers of their own (a private PostgreSQL and Redis on
// free ports in temp dirs; never the shared 5432/6379), the service as an API process and a workers
// process. Each drill streams deposits, injects its fault, recovers, then prints what clients were
// answered per phase and checks the books (scripts/drills/harness.ts verify()). Exit 1 if any drill fails.
// Drills: postgres-restart, redis-kill-keep, redis-kill-empty, api-sigkill, workers-sigkill, workers-outage
// (scripts/drills/workers-outage.ts: workers gone for 60 s under deposits, reads and RFQ trading); the abuse
// drills of scripts/drills/abuse.ts (ws-frame-flood, socket-flood), which print their own numbers; and the
// onchain settlement drills of scripts/drills/settlement.ts (chain-kill-after-sign, chain-kill-after-broadcast,
// chain-kill-after-receipt, chain-rpc-down, chain-stuck-fee, chain-receipts-hidden), each on its own anvil chain.
import { ABUSE_DRILLS, type AbuseDrill } from './abuse.js';
import { workersOutage } from './workers-outage.js';
import { DepositStream, openEnv, sleep, verify, waitReady, type Env } from './harness.js';
import { ONCHAIN_DRILLS, type OnchainDrill } from './settlement.js';

interface Drill {
  name: string;
  what: string;
  fault(env: Env): Promise<void>;
}

const FAULT_MS = Number(process.env.DRILL_FAULT_MS ?? 8000);

const DRILLS: Drill[] = [
  {
    name: 'postgres-restart',
    what: `PostgreSQL stopped (immediate) for ${FAULT_MS} ms under the deposit stream, then started`,
    async fault(env) {
      env.pg.stop('immediate');
      await sleep(FAULT_MS);
      env.pg.start();
    },
  },
  {
    name: 'redis-kill-keep',
    what: `Redis SIGKILLed, restarted after ${FAULT_MS} ms with its data (append-only file)`,
    async fault(env) {
      await env.redis.kill();
      await sleep(FAULT_MS);
      await env.redis.start();
    },
  },
  {
    name: 'redis-kill-empty',
    what: `Redis SIGKILLed, restarted EMPTY after ${FAULT_MS} ms (every job and scheduler lost)`,
    async fault(env) {
      await env.redis.kill();
      await sleep(FAULT_MS);
      await env.redis.start({ empty: true });
    },
  },
  {
    name: 'api-sigkill',
    what: 'the API process SIGKILLed with deposits in flight, restarted at once',
    async fault(env) {
      await env.api.stop('SIGKILL');
      await env.startApi();
    },
  },
  {
    name: 'workers-sigkill',
    what: 'the workers process SIGKILLed mid-stream, restarted after 3 s',
    async fault(env) {
      await env.workers.stop('SIGKILL');
      await sleep(3000);
      await env.startWorkers();
    },
  },
];

async function runAbuseDrill(d: AbuseDrill): Promise<boolean> {
  const started = Date.now();
  const env = await openEnv(d.name);
  try {
    await waitReady(env);
    const { ok, report } = await d.run(env);
    process.stdout.write(
      `${JSON.stringify({ drill: d.name, what: d.what, ...report, seconds: Math.round((Date.now() - started) / 1000) }, null, 2)}\n`,
    );
    process.stdout.write(`${ok ? 'PASS' : 'FAIL'} ${d.name}\n\n`);
    return ok;
  } finally {
    await env.close();
  }
}

async function runOnchainDrill(d: OnchainDrill): Promise<boolean> {
  const started = Date.now();
  const { ok, report } = await d.run();
  process.stdout.write(
    `${JSON.stringify({ drill: d.name, what: d.what, ...report, seconds: Math.round((Date.now() - started) / 1000) }, null, 2)}\n`,
  );
  process.stdout.write(`${ok ? 'PASS' : 'FAIL'} ${d.name}\n\n`);
  return ok;
}

async function runDrill(d: Drill | AbuseDrill | OnchainDrill): Promise<boolean> {
  if ('kind' in d) return runOnchainDrill(d);
  if ('run' in d) return runAbuseDrill(d);
  const started = Date.now();
  const env = await openEnv(d.name);
  try {
    await waitReady(env);
    const stream = await DepositStream.create(env);
    stream.start();
    await sleep(3000);
    stream.phase = 'fault';
    const faultAt = Date.now();
    await d.fault(env);
    const faultMs = Date.now() - faultAt;
    stream.phase = 'after';
    const readyAfterMs = await waitReady(env).catch(() => -1);
    await sleep(4000);
    await stream.stop();
    const verdict = await verify(env, stream);
    process.stdout.write(
      `${JSON.stringify({ drill: d.name, what: d.what, fault_ms: faultMs, ready_after_ms: readyAfterMs, answers: stream.summary(), verdict, seconds: Math.round((Date.now() - started) / 1000) }, null, 2)}\n`,
    );
    process.stdout.write(`${verdict.ok ? 'PASS' : 'FAIL'} ${d.name}\n\n`);
    return verdict.ok;
  } finally {
    await env.close();
  }
}

const ALL: Array<Drill | AbuseDrill | OnchainDrill> = [...DRILLS, workersOutage, ...ABUSE_DRILLS, ...ONCHAIN_DRILLS];
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((w) => !ALL.some((d) => d.name === w));
if (unknown.length) {
  process.stderr.write(`unknown drill(s): ${unknown.join(', ')}; known: ${ALL.map((d) => d.name).join(', ')}\n`);
  process.exit(64);
}
let failed = 0;
for (const d of ALL.filter((x) => !wanted.length || wanted.includes(x.name))) {
  try {
    if (!(await runDrill(d))) failed++;
  } catch (err) {
    failed++;
    process.stdout.write(`FAIL ${d.name}: ${(err as Error).message}\n\n`);
  }
}
process.exit(failed ? 1 : 0);
