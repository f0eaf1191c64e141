// Onchain settlement drills (SETTLEMENT_MODE=onchain, docs/settlement.md), each on a private PostgreSQL and
// Redis and its own anvil chain mining a block a second: withdrawals in flight while the workers process
// is SIGKILLed at one of the three points where a crash could pay twice or never (after signing, after
// broadcasting, after the receipt), while the node is unreachable for 20 s, and while a transaction is
// stuck under a low fee, while the provider hides receipts, and behind a nonce gap. Every withdrawal must pay its destination exactly once on chain (Transfer logs
// counted) and once in the ledger, and the chain must hold exactly what the books owe.
import { startPrivatePostgres, startPrivateRedis } from '../../src/testing/private-servers.js';
import { startOnchainStack, type OnchainStack, type OnchainUser } from '../../src/testing/onchain-stack.js';
import { sleep } from './harness.js';

export interface OnchainDrill {
  kind: 'onchain';
  name: string;
  what: string;
  /** Runs on servers of its own; ok is false when any withdrawal was not paid exactly once. */
  run(): Promise<{ ok: boolean; report: Record<string, unknown> }>;
}

const PER_DRILL = 6;
const MICROS = 1_000_000;

/** `provider`: the node is reached through the hosted-provider stand-in (src/testing/rpc-provider.ts), not the TCP proxy. */
async function withStack<T>(label: string, fn: (s: OnchainStack, user: OnchainUser) => Promise<T>, provider = false): Promise<T> {
  const [pg, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  let s: OnchainStack | undefined;
  try {
    s = await startOnchainStack({
      label,
      deployment: 'redis',
      adminUrl: pg.adminUrl,
      redisUrl: redis.url,
      ...(provider ? { provider: true } : { proxy: true }),
      noWorkers: true,
      chain: { blockTime: 1, confirmations: 2 },
      env: { CHAIN_REPLACE_AFTER_MS: '1500' },
    });
    const w = await s.startWorkers();
    const user = await s.fundedUser(BigInt(PER_DRILL * MICROS * 2));
    await w.stop('SIGTERM');
    s.workers.length = 0;
    return await fn(s, user);
  } finally {
    await s?.stop();
    await redis.destroy();
    pg.destroy();
  }
}

/** Submits the withdrawals, runs the fault, then checks each was paid exactly once. */
async function drill(
  label: string,
  fault: (s: OnchainStack, ids: string[]) => Promise<Record<string, unknown>>,
  before: (s: OnchainStack) => Promise<void> = async () => undefined,
  provider = false,
) {
  return withStack(
    label,
    async (s, user) => {
      await before(s);
      const started = Date.now();
      const sent = await Promise.all(Array.from({ length: PER_DRILL }, (_, i) => s.withdraw(user, MICROS + i)));
      const faultReport = await fault(
        s,
        sent.map((w) => w.id),
      );
      const problems = (await Promise.all(sent.map((w, i) => s.paidOnceProblems(user, w.id, w.to, MICROS + i)))).flat();
      const transactions = (await Promise.all(sent.map((w) => s.sentRows(w.id)))).map((r) => r.length);
      return {
        ok: problems.length === 0 && sent.every((w) => w.status === 202),
        report: {
          withdrawals: sent.length,
          signed_transactions: transactions,
          ...faultReport,
          settle_seconds: (Date.now() - started) / 1000,
          problems,
        },
      };
    },
    provider,
  );
}

/** The runbook of docs/operations.md, "A nonce gap", run as an operator would once the gap is seen. */
async function nonceGap(s: OnchainStack, ids: string[]): Promise<Record<string, unknown>> {
  await s.startWorkers();
  const waiting = async () =>
    (await s.sql.query(`select count(*)::int as n from operations where id = any($1::uuid[]) and pending_reason = 'nonce_gap'`, [ids]))
      .rows[0].n as number;
  for (let i = 0; i < 600 && (await waiting()) < ids.length; i++) await sleep(100);
  const seen = await waiting();
  if (seen !== ids.length) throw new Error(`only ${seen} of ${ids.length} withdrawals waited as nonce_gap`);
  const fill = await s.script('scripts/chain-fill-nonce-gap.ts', ['--timeout-ms=120000']);
  if (fill.code !== 0) throw new Error(`chain:fill-nonce-gap exited ${fill.code}: ${fill.output}`);
  return { waited_as_nonce_gap: seen, fill_exit: fill.code };
}

const RECEIPTS_HIDDEN_MS = 60_000;

/**
 * Receipts hidden for 60 s after mining (issue 39): every withdrawal is paid on chain while the provider answers
 * `null` receipts; until they reappear none may be final (no refund on a missing receipt), none may be replaced
 * at its used nonce. The drill's report says how many were seen paid on chain and still pending.
 */
async function receiptsHidden(s: OnchainStack, ids: string[]): Promise<Record<string, unknown>> {
  const started = Date.now();
  const early: string[] = [];
  let paidWhileHidden = 0;
  while (Date.now() - started < RECEIPTS_HIDDEN_MS - 5000) {
    const { rows } = await s.sql.query(
      `select o.id, o.status, (select count(*)::int from chain_transactions t where t.operation_id = o.id) as attempts
         from operations o where o.id = any($1::uuid[])`,
      [ids],
    );
    for (const r of rows as Array<{ id: string; status: string; attempts: number }>) {
      if (r.status !== 'pending' || r.attempts > 1) early.push(`${r.id}: ${r.status}, ${r.attempts} signed while receipts were hidden`);
    }
    paidWhileHidden = Number(
      (
        await s.sql.query(`select count(*)::int as n from operations where id = any($1::uuid[]) and pending_reason = 'receipt_missing'`, [
          ids,
        ])
      ).rows[0].n,
    );
    await sleep(2000);
  }
  await sleep(Math.max(0, RECEIPTS_HIDDEN_MS - (Date.now() - started)));
  s.provider!.showReceipts();
  if (early.length) throw new Error(`settled or replaced on a missing receipt: ${[...new Set(early)].join('; ')}`);
  return { receipts_hidden_ms: RECEIPTS_HIDDEN_MS, waiting_as_receipt_missing: paidWhileHidden };
}

const killAt = (failpoint: string) => async (s: OnchainStack) => {
  const dying = await s.startWorkers({ FAILPOINTS: `${failpoint}=kill` });
  const code = await new Promise((r) => dying.proc.once('exit', (c, sig) => r(sig ?? c)));
  s.workers.length = 0;
  await sleep(1000);
  await s.startWorkers();
  return { killed_by: code };
};

export const ONCHAIN_DRILLS: OnchainDrill[] = [
  ...(
    [
      ['chain-kill-after-sign', 'chain:afterSign', 'after signing and storing a transaction, before broadcasting it'],
      ['chain-kill-after-broadcast', 'chain:afterBroadcast', 'after broadcasting, before its receipt'],
      ['chain-kill-after-receipt', 'chain:afterReceipt', 'after recording the receipt, before the ledger posting'],
    ] as const
  ).map(([name, fp, when]) => ({
    kind: 'onchain' as const,
    name,
    what: `${PER_DRILL} withdrawals; the workers process SIGKILLed ${when}, restarted`,
    run: () => drill(name, killAt(fp)),
  })),
  {
    kind: 'onchain',
    name: 'chain-rpc-down',
    what: `${PER_DRILL} withdrawals while the chain node is unreachable for 20 s`,
    run: () =>
      drill(
        'chain-rpc-down',
        async (s) => {
          await sleep(20_000);
          const pendingDuring = Number((await s.sql.query(`select count(*)::int as n from operations where status = 'pending'`)).rows[0].n);
          await s.proxy!.resume();
          return { node_down_ms: 20_000, pending_while_down: pendingDuring };
        },
        // The workers start while the node answers (they check the chain at start-up), then it goes away.
        async (s) => {
          await s.startWorkers();
          await s.proxy!.pause();
        },
      ),
  },
  {
    kind: 'onchain',
    name: 'chain-stuck-fee',
    what: `${PER_DRILL} withdrawals signed while the chain is not mining; the base fee then jumps past their fee: each is replaced at its nonce and mined once`,
    run: () =>
      drill(
        'chain-stuck-fee',
        async (s, ids) => {
          const { anvil } = s.chain;
          await s.startWorkers();
          let high = 0n;
          for (const id of ids) {
            for (let i = 0; i < 300 && !(await s.sentRows(id)).length; i++) await sleep(100);
            const first = (await s.sentRows(id))[0];
            if (first && BigInt(first.max_fee) * 4n > high) high = BigInt(first.max_fee) * 4n;
          }
          await anvil.rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`]);
          await anvil.mine(1);
          const replaced = async () =>
            (await Promise.all(ids.map((id) => s.sentRows(id)))).every((r) => BigInt(r.at(-1)?.max_fee ?? 0) > high);
          for (let i = 0; i < 600 && !(await replaced()); i++) await sleep(100);
          await anvil.rpc('evm_setIntervalMining', [1]);
          return { base_fee_raised_to_wei: high.toString() };
        },
        async (s) => {
          await s.chain.anvil.rpc('evm_setIntervalMining', [0]);
          await s.chain.anvil.rpc('evm_setAutomine', [false]);
        },
      ),
  },
  {
    kind: 'onchain',
    name: 'chain-receipts-hidden',
    what: `${PER_DRILL} withdrawals while the provider answers null receipts for 60 s after mining: none refunded, failed or replaced meanwhile; each then paid once`,
    run: () =>
      drill(
        'chain-receipts-hidden',
        receiptsHidden,
        async (s) => {
          await s.startWorkers({ CHAIN_RECEIPT_REVIEW_AFTER_MS: '600000' });
          s.provider!.hideReceipts({ forMs: RECEIPTS_HIDDEN_MS, transactions: 'pending' });
        },
        true,
      ),
  },
  {
    kind: 'onchain',
    name: 'chain-nonce-gap',
    what: `${PER_DRILL} withdrawals signed behind a gap of two nonces (rows a restore lost): each waits as nonce_gap; npm run chain:fill-nonce-gap fills it and each is paid once`,
    run: () =>
      drill('chain-nonce-gap', nonceGap, async (s) => {
        const settlement = s.chain.settlement.address;
        const used = await s.chain.client.getTransactionCount({ address: settlement, blockTag: 'latest' });
        await s.sql.query(`update chain_nonces set next_nonce = $2 where lower(address) = lower($1)`, [settlement, used + 2]);
      }),
  },
];
