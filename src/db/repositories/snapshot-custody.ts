// The cold wallet's repository: its sample calls for the SQL snapshots (src/queries/<feature>.sql); snapshot.ts merges them.
import type { Db } from '../schema.js';
import { ColdSweepRepository } from './cold-sweep.repository.js';
import { U1, WALLET } from './snapshot-samples.js';

export const CUSTODY_CATALOG: Record<string, Array<[string, (db: Db) => Promise<unknown>]>> = {
  'cold-sweep': [
    ['ColdSweepRepository.openSweep', (db) => new ColdSweepRepository(db).openSweep(8453)],
    ['ColdSweepRepository.insert', (db) => new ColdSweepRepository(db).insert({ id: U1, chainId: 8453, to: WALLET, amount: 5_000_000n })],
    ['ColdSweepRepository.lock', (db) => new ColdSweepRepository(db).lock(U1)],
    ['ColdSweepRepository.finish', (db) => new ColdSweepRepository(db).finish(U1, 'done', { txHash: `0x${'ab'.repeat(32)}` })],
    ['ColdSweepRepository.setWaitReason', (db) => new ColdSweepRepository(db).setWaitReason(U1, 'gas')],
    ['ColdSweepRepository.owedWithdrawals', (db) => new ColdSweepRepository(db).owedWithdrawals()],
  ],
};
