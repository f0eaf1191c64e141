// Ledger, idempotency, operations and the settlement adapters: the repositories' sample calls for the SQL snapshots (src/queries/<feature>.sql); snapshot.ts merges them.
import type { Db } from '../schema.js';
import { ChainRepository } from './chain.repository.js';
import { ChainObservationsRepository } from './chain-observations.repository.js';
import { ChainTxRepository } from './chain-tx.repository.js';
import { CustodialRepository } from './custodial.repository.js';
import { DemoRepository } from './demo.repository.js';
import { IdempotencyRepository } from './idempotency.repository.js';
import { LedgerCheckRepository } from './ledger-check.repository.js';
import { LedgerRepository } from './ledger.repository.js';
import { OperationHistoryRepository } from './operation-history.repository.js';
import { OperationsRepository } from './operations.repository.js';
import { SettlementRepository } from './settlement.repository.js';
import { NO_KEY, StatementRepository } from './statement.repository.js';
import { U1, U2, WALLET } from './snapshot-samples.js';
import { WithdrawalsRepository } from './withdrawals.repository.js';

export const MONEY_CATALOG: Record<string, Array<[string, (db: Db) => Promise<unknown>]>> = {
  ledger: [
    ['LedgerRepository.createPotAccounts', (db) => new LedgerRepository(db).createPotAccounts([U1])],
    [
      'LedgerRepository.createUserAccounts',
      (db) => new LedgerRepository(db).createUserAccounts([U1, U1], ['user_available', 'user_reserved']),
    ],
    [
      'LedgerRepository.lockOwned',
      (db) =>
        new LedgerRepository(db).lockOwned({ userIds: [U1], userKinds: ['user_available'], systems: ['settlement_clearing'], pots: [U2] }),
    ],
    [
      'LedgerRepository.insertPostings',
      (db) =>
        new LedgerRepository(db).insertPostings({
          txs: [{ id: U2, kind: 'deposit', reference: U1, idempotencyKey: null }],
          entries: { transactionIds: [U2, U2], accountIds: ['1', '2'], amounts: [-100n, 100n] },
        }),
    ],
    ['LedgerRepository.userBalances', (db) => new LedgerRepository(db).userBalances(U1)],
  ],
  'ledger-check': [
    ['LedgerCheckRepository.counts', (db) => new LedgerCheckRepository(db).counts()],
    ['LedgerCheckRepository.unbalancedTransactions', (db) => new LedgerCheckRepository(db).unbalancedTransactions()],
    ['LedgerCheckRepository.balanceMismatches', (db) => new LedgerCheckRepository(db).balanceMismatches()],
    ['LedgerCheckRepository.negativeUserBalances', (db) => new LedgerCheckRepository(db).negativeUserBalances()],
    ['LedgerCheckRepository.reservedMismatches', (db) => new LedgerCheckRepository(db).reservedMismatches()],
    ['LedgerCheckRepository.statsMismatches', (db) => new LedgerCheckRepository(db).statsMismatches({ taker: 'user:', maker: 'mm:' })],
    ['LedgerCheckRepository.books', (db) => new LedgerCheckRepository(db).books()],
    ['LedgerCheckRepository.depositAddressBooks', (db) => new LedgerCheckRepository(db).depositAddressBooks()],
    ['ChainObservationsRepository.store', (db) => new ChainObservationsRepository(db).store(8453, { head: '1' })],
    ['ChainObservationsRepository.latest', (db) => new ChainObservationsRepository(db).latest()],
    ['ChainObservationsRepository.parkedSweeps', (db) => new ChainObservationsRepository(db).parkedSweeps()],
    ['ChainObservationsRepository.withdrawalsWaiting', (db) => new ChainObservationsRepository(db).withdrawalsWaiting()],
  ],
  withdrawals: [
    ['WithdrawalsRepository.lockUser', (db) => new WithdrawalsRepository(db).lockUser(U1)],
    ['WithdrawalsRepository.userWithdrawnSince', (db) => new WithdrawalsRepository(db).userWithdrawnSince(U1, 86_400_000)],
    ['WithdrawalsRepository.lockDeploymentVolume', (db) => new WithdrawalsRepository(db).lockDeploymentVolume()],
    ['WithdrawalsRepository.automaticWithdrawnSince', (db) => new WithdrawalsRepository(db).automaticWithdrawnSince(3_600_000)],
    ['WithdrawalsRepository.isDepositAddress', (db) => new WithdrawalsRepository(db).isDepositAddress([WALLET, WALLET.toLowerCase()])],
    [
      'WithdrawalsRepository.insertReview',
      (db) => new WithdrawalsRepository(db).insertReview(U1, ['above_review_threshold', 'hourly_limit']),
    ],
    ['WithdrawalsRepository.lockForDecision', (db) => new WithdrawalsRepository(db).lockForDecision(U1)],
    [
      'WithdrawalsRepository.decide',
      (db) => new WithdrawalsRepository(db).decide({ operationId: U1, decision: 'rejected', reason: 'checked', operator: 'alice' }),
    ],
    ['WithdrawalsRepository.release', (db) => new WithdrawalsRepository(db).release(U1)],
    ['WithdrawalsRepository.reviewsOf', (db) => new WithdrawalsRepository(db).reviewsOf([U1, U2])],
    ['WithdrawalsRepository.feesOf', (db) => new WithdrawalsRepository(db).feesOf([U1, U2])],
    ['WithdrawalsRepository.adminOperations', (db) => new WithdrawalsRepository(db).adminOperations([U1, U2])],
    ['WithdrawalsRepository.reviewIds', (db) => new WithdrawalsRepository(db).reviewIds('review', 50)],
    ['WithdrawalsRepository.reviewIds (decided)', (db) => new WithdrawalsRepository(db).reviewIds('approved', 50)],
  ],
  demo: [['DemoRepository.claimMarker', (db) => new DemoRepository(db).claimMarker('demo_seed_v1', Buffer.alloc(16))]],
  idempotency: [
    [
      'IdempotencyRepository.insertWaiting',
      (db) => new IdempotencyRepository(db).insertWaiting({ scope: `user:${U1}`, operation: 'createDeposit', key: U2 }, 'f00d', 5_000),
    ],
    [
      'IdempotencyRepository.read',
      (db) => new IdempotencyRepository(db).read({ scope: `user:${U1}`, operation: 'createDeposit', key: U2 }),
    ],
    [
      'IdempotencyRepository.store',
      (db) => new IdempotencyRepository(db).store({ scope: `user:${U1}`, operation: 'createDeposit', key: U2 }, 201, '{"a":1}', U1),
    ],
    ['IdempotencyRepository.lockTimeout', (db) => new IdempotencyRepository(db).lockTimeout(5_000)],
    ['IdempotencyRepository.lockTimeout (default)', (db) => new IdempotencyRepository(db).lockTimeout(null)],
    ['IdempotencyRepository.prune', (db) => new IdempotencyRepository(db).prune(86_400_000)],
  ],
  operations: [
    [
      'OperationsRepository.insert',
      (db) => new OperationsRepository(db).insert({ id: U1, userId: U2, kind: 'withdraw', amount: 100n, destination: WALLET, key: U2 }),
    ],
    [
      'OperationsRepository.insert (held for review)',
      (db) =>
        new OperationsRepository(db).insert({
          id: U1,
          userId: U2,
          kind: 'withdraw',
          amount: 100n,
          fee: 5n,
          destination: WALLET,
          key: U2,
          held: true,
        }),
    ],
    ['OperationsRepository.findByKey', (db) => new OperationsRepository(db).findByKey(U2, 'deposit', U1)],
    ['OperationsRepository.find', (db) => new OperationsRepository(db).find(U1)],
    ['OperationsRepository.findManyForUpdate', (db) => new OperationsRepository(db).findManyForUpdate([U1, U2])],
    [
      'OperationsRepository.markFinal',
      (db) =>
        new OperationsRepository(db).markFinal({
          ids: [U1, U2],
          statuses: ['success', 'failed'],
          txHashes: ['0xabc', null],
          failureCodes: [null, 'SETTLEMENT_FAILED'],
        }),
    ],
    ['OperationsRepository.deleteOutboxes', (db) => new OperationsRepository(db).deleteOutboxes([U1])],
    ['OperationsRepository.staleOutbox', (db) => new OperationsRepository(db).staleOutbox(30_000, 500)],
    ['OperationsRepository.userExists', (db) => new OperationsRepository(db).userExists(U1)],
    ['OperationsRepository.earlierAppTokenCredit', (db) => new OperationsRepository(db).earlierAppTokenCredit(U1, `${U1}:${U2}`)],
  ],
  statement: [
    ['StatementRepository.preferOrderedScans', (db) => new StatementRepository(db).preferOrderedScans()],
    ['StatementRepository.accounts', (db) => new StatementRepository(db).accounts(U1)],
    [
      'StatementRepository.scan',
      (db) =>
        new StatementRepository(db).scan(
          [
            { id: '11', upTo: 900n },
            { id: '12', upTo: 0n },
          ],
          NO_KEY,
          22,
        ),
    ],
    ['StatementRepository.movements', (db) => new StatementRepository(db).movements([{ transactionId: U2, key: 880n }], ['11', '12'])],
  ],
  'operation-history': [
    [
      'OperationHistoryRepository.page',
      (db) =>
        new OperationHistoryRepository(db).page(U1, {
          kind: 'withdraw',
          status: 'pending',
          after: { createdUs: 1_767_225_600_000_000, id: U2 },
          limit: 21,
          listenerCursor: 'custodial-deposits',
        }),
    ],
    [
      'OperationHistoryRepository.page (one)',
      (db) =>
        new OperationHistoryRepository(db).page(U1, {
          kind: null,
          status: null,
          after: null,
          id: U2,
          limit: 1,
          listenerCursor: 'custodial-deposits',
        }),
    ],
  ],
  settlement: [
    ['SettlementRepository.lockUsersWithDepositTotals', (db) => new SettlementRepository(db).lockUsersWithDepositTotals([U1, U2])],
  ],
  chain: [
    ['ChainRepository.ensureNonce', (db) => new ChainRepository(db).ensureNonce(8453, WALLET, 7n)],
    ['ChainRepository.operation', (db) => new ChainRepository(db).operation(U1, false)],
    ['ChainRepository.operation (for update)', (db) => new ChainRepository(db).operation(U1, true)],
    ['ChainRepository.transactions', (db) => new ChainRepository(db).transactions(U1)],
    ['ChainRepository.outcomes', (db) => new ChainRepository(db).outcomes([U1, U2])],
    ['ChainRepository.lockUserPendingDeposits', (db) => new ChainRepository(db).lockUserPendingDeposits(U1)],
    ['ChainRepository.depositIndex', (db) => new ChainRepository(db).depositIndex(U1)],
    ['ChainRepository.setPendingReason', (db) => new ChainRepository(db).setPendingReason(U1, 'receipt_missing')],
    ['ChainRepository.deferOutbox', (db) => new ChainRepository(db).deferOutbox(U1, 60_000)],
    ['ChainRepository.resolutions', (db) => new ChainRepository(db).resolutions([U1, U2])],
    [
      'ChainRepository.insertResolution',
      (db) =>
        new ChainRepository(db).insertResolution({
          operationId: U1,
          outcome: 'success',
          txHash: `0x${'ab'.repeat(32)}`,
          reason: 'seen',
          operator: 'alice',
        }),
    ],
    ['ChainRepository.waiting', (db) => new ChainRepository(db).waiting('needs_review', 50)],
    ['ChainRepository.adminOperation', (db) => new ChainRepository(db).adminOperation(U1)],
    ['ChainRepository.transactionsOf', (db) => new ChainRepository(db).transactionsOf([U1, U2])],
  ],
  'chain-tx': [
    ['ChainTxRepository.attempts', (db) => new ChainTxRepository(db).attempts({ purpose: 'operation', operationId: U1 })],
    ['ChainTxRepository.attempts (sweep, from)', (db) => new ChainTxRepository(db).attempts({ purpose: 'sweep', sweepId: U1 }, WALLET)],
    ['ChainTxRepository.unrecordedFillerNonces', (db) => new ChainTxRepository(db).unrecordedFillerNonces(8453, WALLET)],
    [
      'ChainTxRepository.insertAttempt',
      (db) =>
        new ChainTxRepository(db).insertAttempt({
          hash: `0x${'ab'.repeat(32)}`,
          chainId: 8453,
          owner: { purpose: 'filler', intentId: U1 },
          from: WALLET,
          nonce: 7n,
          attempt: 0,
          raw: '0x02',
          maxFeePerGas: 2_000_000_000n,
          maxPriorityFeePerGas: 1_000_000n,
          gasLimit: 21_000n,
        }),
    ],
    ['ChainTxRepository.allocateNonce', (db) => new ChainTxRepository(db).allocateNonce(8453, WALLET, 7n)],
    ['ChainTxRepository.lowestOpenNonce', (db) => new ChainTxRepository(db).lowestOpenNonce(8453, WALLET, 7n)],
    ['ChainTxRepository.openCostWei', (db) => new ChainTxRepository(db).openCostWei(8453, WALLET, 7n)],
    ['ChainTxRepository.firstUnstoredNonce', (db) => new ChainTxRepository(db).firstUnstoredNonce(8453, WALLET, 7n, 12n)],
    ['ChainTxRepository.lockNonceRow', (db) => new ChainTxRepository(db).lockNonceRow(8453, WALLET)],
    ['ChainTxRepository.atNonce', (db) => new ChainTxRepository(db).atNonce(8453, WALLET, 7n)],
    ['ChainTxRepository.withdrawalsInFlight', (db) => new ChainTxRepository(db).withdrawalsInFlight(U1)],
    ['ChainTxRepository.markUnproven', (db) => new ChainTxRepository(db).markUnproven([`0x${'ab'.repeat(32)}`])],
    ['ChainTxRepository.clearUnproven', (db) => new ChainTxRepository(db).clearUnproven([`0x${'ab'.repeat(32)}`])],
    ['ChainTxRepository.setBroadcastError', (db) => new ChainTxRepository(db).setBroadcastError(`0x${'ab'.repeat(32)}`, 'underpriced')],
    ['ChainTxRepository.recordOutcome', (db) => new ChainTxRepository(db).recordOutcome(`0x${'ab'.repeat(32)}`, 'success', 123n)],
  ],
  custodial: [
    [
      'CustodialRepository.register',
      (db) => new CustodialRepository(db).register({ address: WALLET, userId: U1, index: 7n, fromBlock: 100n }),
    ],
    ['CustodialRepository.registered', (db) => new CustodialRepository(db).registered(U1)],
    ['CustodialRepository.watched', (db) => new CustodialRepository(db).watched()],
    ['CustodialRepository.sweepFailed', (db) => new CustodialRepository(db).sweepFailed(WALLET, 'reverted', 3, 60_000)],
    ['CustodialRepository.park', (db) => new CustodialRepository(db).park(WALLET, 'blacklisted')],
    ['CustodialRepository.sweepSucceeded', (db) => new CustodialRepository(db).sweepSucceeded(WALLET)],
    ['CustodialRepository.parked', (db) => new CustodialRepository(db).parked(100)],
    ['CustodialRepository.firstRegistered', (db) => new CustodialRepository(db).firstRegistered()],
    ['CustodialRepository.cursor', (db) => new CustodialRepository(db).cursor(8453, 'custodial-deposits', false)],
    ['CustodialRepository.cursor (for update)', (db) => new CustodialRepository(db).cursor(8453, 'custodial-deposits', true)],
    [
      'CustodialRepository.initCursor',
      (db) => new CustodialRepository(db).initCursor(8453, 'custodial-deposits', 100n, `0x${'cd'.repeat(32)}`),
    ],
    [
      'CustodialRepository.moveCursor',
      (db) => new CustodialRepository(db).moveCursor(8453, 'custodial-deposits', 200n, `0x${'cd'.repeat(32)}`),
    ],
    [
      'CustodialRepository.credit',
      (db) =>
        new CustodialRepository(db).credit(8453, [
          {
            txHash: `0x${'ab'.repeat(32)}`,
            logIndex: 3,
            blockNumber: 150n,
            blockHash: `0x${'cd'.repeat(32)}`,
            from: WALLET,
            to: WALLET,
            amount: 5_000_000n,
            operationId: U2,
          },
        ]),
    ],
    ['CustodialRepository.sweepCandidates', (db) => new CustodialRepository(db).sweepCandidates(8453, 50)],
    ['CustodialRepository.markSwept', (db) => new CustodialRepository(db).markSwept(WALLET, 3n)],
    ['CustodialRepository.openSweep', (db) => new CustodialRepository(db).openSweep(U1, 8453, WALLET)],
    ['CustodialRepository.activeSweeps', (db) => new CustodialRepository(db).activeSweeps(8453)],
    ['CustodialRepository.lockSweep', (db) => new CustodialRepository(db).lockSweep(U1)],
    ['CustodialRepository.setSweep', (db) => new CustodialRepository(db).setSweep(U1, 'transfer', 5_000_000n)],
  ],
};
