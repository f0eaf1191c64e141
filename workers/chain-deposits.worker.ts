// Processor of the `chain-deposits` queue (docs/settlement-custodial.md), both jobs scheduled every
// CHAIN_DEPOSIT_SCAN_EVERY_MS (src/jobs/schedulers.ts):
//   scan-deposits: the custodial deposit listener credits the confirmed USDC transfers into deposit addresses
//     since its cursor (src/domain/settlement/onchain/deposits.ts);
//   sweep-deposits: opens the sweeps that are due and moves each open sweep by one step
//     (src/domain/settlement/onchain/sweeps.ts);
//   cold-sweep (with HOT_WALLET_MAX_MICROS): steps the open cold-wallet sweep or opens one for the settlement
//     wallet's excess (src/domain/settlement/onchain/cold-sweep.ts).
//   reconcile-chain (every CHAIN_RECONCILE_EVERY_MS, onchain mode): the chain read once and stored for the API
//     processes (src/domain/settlement/onchain/observe-chain.ts): the only reader of deposit-address balances.
// Both are idempotent and safe in two worker processes at once (the cursor's and each sweep's row locks decide).
// Without SETTLEMENT_MODE=onchain and DEPOSIT_MNEMONIC the adapter has neither, and the jobs do nothing. A chain
// node error fails the job (logged); the next tick starts again from the stored state.
import { JOB, type QUEUE } from '../src/jobs/queues.js';
import type { WorkerSpec } from './worker-spec.js';

export const chainDepositsWorker: WorkerSpec<typeof QUEUE.chainDeposits> = {
  // A scan and a sweep tick at once; PGlite (one connection) runs them one by one.
  concurrency: (kind) => (kind === 'pglite' ? 1 : 2),
  // A worker process that dies mid-scan must not hold the job for BullMQ's default 30 s lock.
  options: { lockDuration: 10_000, stalledInterval: 5_000 },
  processor: ({ rt, log, settlement, stopping }) => ({
    async process(job) {
      if (job.name === JOB.reconcileChain) {
        if (!settlement.observeChain) return { skipped: true };
        const seen = await settlement.observeChain(rt.orm.em.fork());
        if (!seen.ok)
          log.warn({ job_id: job.id, reason: seen.error }, 'the chain could not be observed; the stored figures are the last good ones');
        return seen;
      }
      if (job.name === JOB.scanDeposits) {
        if (!settlement.scanDeposits) return { skipped: true };
        return settlement.scanDeposits(rt.orm.em.fork(), stopping);
      }
      if (job.name === JOB.coldSweep) {
        if (!settlement.coldSweep) return { skipped: true };
        const tick = await settlement.coldSweep(rt.orm.em.fork());
        log.debug({ job_id: job.id, ...tick }, 'cold sweep tick');
        return tick;
      }
      if (!settlement.sweepDeposits) return { skipped: true };
      const tick = await settlement.sweepDeposits(rt.orm.em.fork());
      log.debug({ job_id: job.id, ...tick }, 'sweep tick');
      return tick;
    },
  }),
};
