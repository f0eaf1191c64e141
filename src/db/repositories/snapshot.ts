// Every repository query compiled with sample parameters, as Immich snapshots its repositories' SQL:
// `npm run sql:snapshot` writes them to src/queries/<feature>.sql, review them like generated code, and
// `npm test` fails when a repository's SQL changed without a new snapshot. The benches replay these.
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type { DB, Db } from '../schema.js';
import { ContestBoardsRepository } from './contest-boards.repository.js';
import { ContestsRepository } from './contests.repository.js';
import { DemoRepository } from './demo.repository.js';
import { EntriesRepository } from './entries.repository.js';
import { HeartbeatsRepository } from './heartbeats.repository.js';
import { IdempotencyRepository } from './idempotency.repository.js';
import { OperationsRepository } from './operations.repository.js';
import { IdentityRepository } from './identity.repository.js';
import { LedgerRepository } from './ledger.repository.js';
import { MarketMakersRepository } from './market-makers.repository.js';
import { MarketsRepository } from './markets.repository.js';
import { PoolImagesRepository } from './pool-images.repository.js';
import { OperatorAuditRepository } from './operator-audit.repository.js';
import { TRADING_CATALOG } from './snapshot-trading.js';
import { SettlementRepository } from './settlement.repository.js';
import { ChainRepository } from './chain.repository.js';
import { CustodialRepository } from './custodial.repository.js';

export interface CompiledQuery {
  /** `Repository.method` (with a suffix when one method issues several statements or has variants). */
  name: string;
  sql: string;
  parameters: readonly unknown[];
}

const U1 = '00000000-0000-4000-8000-000000000001';
const U2 = '00000000-0000-4000-8000-000000000002';
const WALLET = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const PRIVY = { sub: 'did:privy:abc', address: WALLET, xHandle: 'alice', xAvatarUrl: 'https://x.example/a.png' };

/** Sample calls per feature file. Each call may issue several statements (all are recorded, in order). */
const CATALOG: Record<string, Array<[string, (db: Db) => Promise<unknown>]>> = {
  ledger: [
    ['LedgerRepository.createPotAccounts', (db) => new LedgerRepository(db).createPotAccounts([U1])],
    ['LedgerRepository.createUserAccounts', (db) => new LedgerRepository(db).createUserAccounts([U1, U1], ['user_available', 'user_reserved'])],
    [
      'LedgerRepository.lockOwned',
      (db) => new LedgerRepository(db).lockOwned({ userIds: [U1], userKinds: ['user_available'], systems: ['settlement_clearing'], pots: [U2] }),
    ],
    [
      'LedgerRepository.insertPostings',
      (db) =>
        new LedgerRepository(db).insertPostings({
          txs: [{ id: U2, kind: 'deposit', reference: U1, idempotencyKey: null }],
          entries: { transactionIds: [U2, U2], accountIds: ['1', '2'], amounts: ['-100', '100'] },
        }),
    ],
    ['LedgerRepository.userBalances', (db) => new LedgerRepository(db).userBalances(U1)],
  ],
  demo: [['DemoRepository.claimMarker', (db) => new DemoRepository(db).claimMarker('demo_seed_v1', Buffer.alloc(16))]],
  idempotency: [
    [
      'IdempotencyRepository.insertWaiting',
      (db) => new IdempotencyRepository(db).insertWaiting({ scope: `user:${U1}`, operation: 'createDeposit', key: U2 }, 'f00d', 5_000),
    ],
    ['IdempotencyRepository.read', (db) => new IdempotencyRepository(db).read({ scope: `user:${U1}`, operation: 'createDeposit', key: U2 })],
    [
      'IdempotencyRepository.store',
      (db) => new IdempotencyRepository(db).store({ scope: `user:${U1}`, operation: 'createDeposit', key: U2 }, 201, '{"a":1}', U1),
    ],
    ['IdempotencyRepository.prune', (db) => new IdempotencyRepository(db).prune(86_400_000)],
  ],
  operations: [
    [
      'OperationsRepository.insert',
      (db) => new OperationsRepository(db).insert({ id: U1, userId: U2, kind: 'withdraw', amount: '100', destination: WALLET, key: U2 }),
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
  entries: [
    ['EntriesRepository.byKey', (db) => new EntriesRepository(db).byKey(U1, U2)],
    ['EntriesRepository.picks', (db) => new EntriesRepository(db).picks(U1)],
    ['EntriesRepository.heldBy', (db) => new EntriesRepository(db).heldBy(U1, U2)],
    [
      'EntriesRepository.insertEntry',
      (db) =>
        new EntriesRepository(db).insertEntry({
          id: U1,
          contestId: U2,
          userId: U1,
          entryIndex: 0,
          createdAtMs: '1767225600000',
          pickCount: 2,
          key: U2,
        }),
    ],
    [
      'EntriesRepository.insertPicks',
      (db) =>
        new EntriesRepository(db).insertPicks(U1, [
          { marketId: '7', direction: 'up' },
          { marketId: '8', direction: 'down' },
        ]),
    ],
    ['EntriesRepository.countPicks', (db) => new EntriesRepository(db).countPicks(U2, ['7'], ['8'])],
    ['EntriesRepository.countEntry', (db) => new EntriesRepository(db).countEntry(U2)],
    ['EntriesRepository.joined', (db) => new EntriesRepository(db).joined(U1, [U2])],
  ],
  markets: [
    [
      'MarketsRepository.insertWindows',
      (db) => new MarketsRepository(db).insertWindows([{ asset: 'BTC', durationSecs: 60, startAtMs: 1_700_000_040_000 }]),
    ],
    ['MarketsRepository.findWindow', (db) => new MarketsRepository(db).findWindow({ asset: 'BTC', durationSecs: 60, startAtMs: 1_700_000_040_000 })],
  ],
  'market-makers': [
    ['MarketMakersRepository.register', (db) => new MarketMakersRepository(db).register(WALLET, 'Demo MM')],
    ['MarketMakersRepository.remove', (db) => new MarketMakersRepository(db).remove(WALLET)],
    ['MarketMakersRepository.revokeSessions', (db) => new MarketMakersRepository(db).revokeSessions(WALLET)],
    [
      'MarketMakersRepository.insertSessionIfActive',
      (db) => new MarketMakersRepository(db).insertSessionIfActive({ id: U1, tokenHash: Buffer.alloc(32), walletAddress: WALLET, ttlMs: 86_400_000 }),
    ],
    ['MarketMakersRepository.endedSessions', (db) => new MarketMakersRepository(db).endedSessions([U1, U2])],
  ],
  identity: [
    ['IdentityRepository.updatePrivyUser', (db) => new IdentityRepository(db).updatePrivyUser(PRIVY)],
    ['IdentityRepository.insertPrivyUser', (db) => new IdentityRepository(db).insertPrivyUser(U1, PRIVY)],
    ['IdentityRepository.attachPrivySubject', (db) => new IdentityRepository(db).attachPrivySubject(PRIVY)],
    ['IdentityRepository.findUserByWallet', (db) => new IdentityRepository(db).findUserByWallet(WALLET)],
    ['IdentityRepository.insertWalletUser', (db) => new IdentityRepository(db).insertWalletUser(U1, WALLET)],
    ['IdentityRepository.findUser', (db) => new IdentityRepository(db).findUser(U1)],
    ['IdentityRepository.setHandle', (db) => new IdentityRepository(db).setHandle(U1, 'alice')],
    [
      'IdentityRepository.insertUserSession',
      (db) => new IdentityRepository(db).insertUserSession({ id: U2, tokenHash: Buffer.alloc(32), userId: U1, ttlSeconds: 604_800 }),
    ],
    ['IdentityRepository.liveSession', (db) => new IdentityRepository(db).liveSession(Buffer.alloc(32))],
    ['IdentityRepository.revokeSession', (db) => new IdentityRepository(db).revokeSession(U2)],
    ['IdentityRepository.insertNonce', (db) => new IdentityRepository(db).insertNonce('0'.repeat(32), 300)],
    ['IdentityRepository.purgeExpiredNonces', (db) => new IdentityRepository(db).purgeExpiredNonces()],
    ['IdentityRepository.consumeNonce', (db) => new IdentityRepository(db).consumeNonce('0'.repeat(32))],
    ['IdentityRepository.pruneSessionsBatch', (db) => new IdentityRepository(db).pruneSessionsBatch(3_600_000, 5_000)],
    ['IdentityRepository.pruneNoncesBatch', (db) => new IdentityRepository(db).pruneNoncesBatch(5_000)],
    ['IdentityRepository.pruneLimitsBatch', (db) => new IdentityRepository(db).pruneLimitsBatch(5_000)],
  ],
  settlement: [['SettlementRepository.lockUsersWithDepositTotals', (db) => new SettlementRepository(db).lockUsersWithDepositTotals([U1, U2])]],
  chain: [
    ['ChainRepository.ensureNonce', (db) => new ChainRepository(db).ensureNonce(8453, WALLET, 7n)],
    ['ChainRepository.allocateNonce', (db) => new ChainRepository(db).allocateNonce(8453, WALLET)],
    ['ChainRepository.operation', (db) => new ChainRepository(db).operation(U1, false)],
    ['ChainRepository.operation (for update)', (db) => new ChainRepository(db).operation(U1, true)],
    ['ChainRepository.transactions', (db) => new ChainRepository(db).transactions(U1)],
    [
      'ChainRepository.insertTransaction',
      (db) =>
        new ChainRepository(db).insertTransaction({
          hash: `0x${'ab'.repeat(32)}`,
          chainId: 8453,
          operationId: U1,
          from: WALLET,
          nonce: 7n,
          attempt: 0,
          raw: '0x02f8',
          maxFeePerGas: 2_000_000_000n,
          maxPriorityFeePerGas: 1_000_000n,
        }),
    ],
    ['ChainRepository.recordOutcome', (db) => new ChainRepository(db).recordOutcome(U1, `0x${'ab'.repeat(32)}`, 'success', 123n)],
    ['ChainRepository.outcomes', (db) => new ChainRepository(db).outcomes([U1, U2])],
    ['ChainRepository.lockUserPendingDeposits', (db) => new ChainRepository(db).lockUserPendingDeposits(U1)],
    ['ChainRepository.depositIndex', (db) => new ChainRepository(db).depositIndex(U1)],
  ],
  custodial: [
    ['CustodialRepository.register', (db) => new CustodialRepository(db).register({ address: WALLET, userId: U1, index: '7', fromBlock: 100n })],
    ['CustodialRepository.registered', (db) => new CustodialRepository(db).registered(U1)],
    ['CustodialRepository.watched', (db) => new CustodialRepository(db).watched()],
    ['CustodialRepository.firstRegistered', (db) => new CustodialRepository(db).firstRegistered()],
    ['CustodialRepository.cursor', (db) => new CustodialRepository(db).cursor(8453, 'custodial-deposits', false)],
    ['CustodialRepository.cursor (for update)', (db) => new CustodialRepository(db).cursor(8453, 'custodial-deposits', true)],
    ['CustodialRepository.initCursor', (db) => new CustodialRepository(db).initCursor(8453, 'custodial-deposits', 100n, `0x${'cd'.repeat(32)}`)],
    ['CustodialRepository.moveCursor', (db) => new CustodialRepository(db).moveCursor(8453, 'custodial-deposits', 200n, `0x${'cd'.repeat(32)}`)],
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
    ['CustodialRepository.markSwept', (db) => new CustodialRepository(db).markSwept(WALLET, '3')],
    ['CustodialRepository.markUnswept', (db) => new CustodialRepository(db).markUnswept(WALLET)],
    ['CustodialRepository.openSweep', (db) => new CustodialRepository(db).openSweep(U1, 8453, WALLET)],
    ['CustodialRepository.activeSweeps', (db) => new CustodialRepository(db).activeSweeps(8453)],
    ['CustodialRepository.lockSweep', (db) => new CustodialRepository(db).lockSweep(U1)],
    ['CustodialRepository.setSweep', (db) => new CustodialRepository(db).setSweep(U1, 'transfer', 5_000_000n)],
    ['CustodialRepository.sweepTransactions', (db) => new CustodialRepository(db).sweepTransactions(U1, WALLET)],
    ['CustodialRepository.recordSweepOutcome', (db) => new CustodialRepository(db).recordSweepOutcome(`0x${'ab'.repeat(32)}`, 'success', 123n)],
  ],
  heartbeats: [
    [
      'HeartbeatsRepository.record',
      (db) => new HeartbeatsRepository(db).record({ workerId: 'w1', hostname: 'h', pid: 1, startedAt: new Date(0), lastSeenAt: new Date(0) }),
    ],
    ['HeartbeatsRepository.latest', (db) => new HeartbeatsRepository(db).latest()],
    ['HeartbeatsRepository.recent', (db) => new HeartbeatsRepository(db).recent(100)],
  ],
  contests: [
    ['ContestsRepository.findContest', (db) => new ContestsRepository(db).findContest(U1)],
    ['ContestsRepository.findContest (for update)', (db) => new ContestsRepository(db).findContest(U1, { forUpdate: true })],
    ['ContestsRepository.lobbyPage', (db) => new ContestsRepository(db).lobbyPage({ limit: 21 })],
    [
      'ContestsRepository.lobbyPage (status, category, cursor)',
      (db) =>
        new ContestsRepository(db).lobbyPage({ status: 'open', category: 'sports', after: { createdAtMs: '1700000000000', id: U1 }, limit: 21 }),
    ],
    ['ContestsRepository.lobbyCursorKey', (db) => new ContestsRepository(db).lobbyCursorKey()],
    ['ContestsRepository.marketsOf', (db) => new ContestsRepository(db).marketsOf(U1)],
    ['ContestsRepository.marketForUpdate', (db) => new ContestsRepository(db).marketForUpdate('7')],
    ['ContestsRepository.marketOwner', (db) => new ContestsRepository(db).marketOwner('7')],
    ['ContestsRepository.marketStatuses', (db) => new ContestsRepository(db).marketStatuses(U1)],
    ['ContestsRepository.scoreCounts', (db) => new ContestsRepository(db).scoreCounts(U1)],
    ['ContestsRepository.rebuildScoreCounts', (db) => new ContestsRepository(db).rebuildScoreCounts(U1)],
    ['ContestsRepository.newContestMarketIds', (db) => new ContestsRepository(db).newContestMarketIds(2)],
    ['ContestsRepository.setMarketResolution', (db) => new ContestsRepository(db).setMarketResolution('7', 'RESOLVED', 'YES', '1700000000000')],
    ['ContestsRepository.countVoidedLeg', (db) => new ContestsRepository(db).countVoidedLeg('7')],
    ['ContestsRepository.countResolvedLeg', (db) => new ContestsRepository(db).countResolvedLeg('7', 'up', true)],
    ['ContestsRepository.decrementOpenMarkets', (db) => new ContestsRepository(db).decrementOpenMarkets(U1)],
    ['ContestsRepository.entriesForSettlement', (db) => new ContestsRepository(db).entriesForSettlement(U1)],
    ['ContestsRepository.setPayouts', (db) => new ContestsRepository(db).setPayouts([U1, U2], ['700', '0'], [1, 2])],
    ['ContestsRepository.markResolved', (db) => new ContestsRepository(db).markResolved(U1, '1700000000000')],
    ['ContestsRepository.markVoided', (db) => new ContestsRepository(db).markVoided(U1, '1700000000000')],
    ['ContestsRepository.awaitingResolution', (db) => new ContestsRepository(db).awaitingResolution(100)],
    ['ContestsRepository.picksOf', (db) => new ContestsRepository(db).picksOf([U1, U2])],
  ],
  'contest-boards': [
    ['ContestBoardsRepository.leaderboardTop', (db) => new ContestBoardsRepository(db).leaderboardTop(U1, 10)],
    ['ContestBoardsRepository.leaderboardOfUser', (db) => new ContestBoardsRepository(db).leaderboardOfUser(U1, U2)],
    [
      'ContestBoardsRepository.topParticipants',
      (db) =>
        new ContestBoardsRepository(db).topParticipants({
          category: 'sports',
          gameType: 'lineups',
          fromMs: '1699395200000',
          toMs: '1700000000000',
          limit: 10,
        }),
    ],
    [
      'ContestBoardsRepository.resolutionTimesAround',
      (db) =>
        new ContestBoardsRepository(db).resolutionTimesAround({
          category: 'sports',
          gameType: 'lineups',
          fromMs: '1699395200000',
          toMs: '1700000000000',
        }),
    ],
    ['ContestBoardsRepository.pickCounts', (db) => new ContestBoardsRepository(db).pickCounts(U1)],
    ['ContestBoardsRepository.userIdByHandle', (db) => new ContestBoardsRepository(db).userIdByHandle('alice')],
    ['ContestBoardsRepository.entriesOfUser', (db) => new ContestBoardsRepository(db).entriesOfUser(U1, U2)],
  ],
  'pool-images': [
    [
      'PoolImagesRepository.insert',
      (db) =>
        new PoolImagesRepository(db).insert({
          id: U1,
          contentType: 'image/png',
          bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47]),
          sha256: '0'.repeat(64),
        }),
    ],
    ['PoolImagesRepository.find', (db) => new PoolImagesRepository(db).find(U1)],
    ['PoolImagesRepository.exists', (db) => new PoolImagesRepository(db).exists(U1)],
  ],
  'operator-audit': [
    [
      'OperatorAuditRepository.append',
      (db) =>
        new OperatorAuditRepository(db).append({
          id: U1,
          atMs: 1700000000000,
          operator: 'alice',
          requestId: 'req-1',
          operationId: 'createMarketMaker',
          method: 'POST',
          path: '/v1/admin/market-makers',
          target: WALLET,
          body: { wallet_address: WALLET, name: 'Acme' },
          status: 201,
          errorCode: null,
          inTransaction: true,
        }),
    ],
    ['OperatorAuditRepository.page', (db) => new OperatorAuditRepository(db).page(null, 51)],
    ['OperatorAuditRepository.page:after', (db) => new OperatorAuditRepository(db).page({ atMs: 1700000000000, id: U1 }, 51)],
  ],
};

/** A Kysely that compiles and records every statement and runs none (each returns no rows). */
function recordingDb(out: Array<{ sql: string; parameters: readonly unknown[] }>): Db {
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (e) => {
      out.push({ sql: e.query.sql, parameters: e.query.parameters });
    },
  });
}

/** Every catalogued query, by feature file. */
export async function compileRepositoryQueries(): Promise<Record<string, CompiledQuery[]>> {
  const out: Record<string, CompiledQuery[]> = {};
  for (const [feature, calls] of Object.entries({ ...CATALOG, ...TRADING_CATALOG })) {
    const list: CompiledQuery[] = (out[feature] = []);
    for (const [name, call] of calls) {
      const seen: Array<{ sql: string; parameters: readonly unknown[] }> = [];
      await call(recordingDb(seen)).catch(() => undefined); // no rows: executeTakeFirstOrThrow throws after the query ran
      seen.forEach((q, i) => list.push({ name: seen.length > 1 ? `${name} #${i + 1}` : name, ...q }));
    }
  }
  return out;
}
