// Contests, their entries, boards and pool images: the repositories' sample calls for the SQL snapshots (src/queries/<feature>.sql); snapshot.ts merges them.
import type { Db } from '../schema.js';
import { ContestBoardsRepository } from './contest-boards.repository.js';
import { ContestsRepository } from './contests.repository.js';
import { EntriesRepository } from './entries.repository.js';
import { PoolImagesRepository } from './pool-images.repository.js';
import { U1, U2 } from './snapshot-samples.js';

export const CONTESTS_CATALOG: Record<string, Array<[string, (db: Db) => Promise<unknown>]>> = {
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
  contests: [
    ['ContestsRepository.findContest', (db) => new ContestsRepository(db).findContest(U1)],
    ['ContestsRepository.findContest (for update)', (db) => new ContestsRepository(db).findContest(U1, { forUpdate: true })],
    ['ContestsRepository.lobbyPage', (db) => new ContestsRepository(db).lobbyPage({ limit: 21 })],
    [
      'ContestsRepository.lobbyPage (status, category, cursor)',
      (db) =>
        new ContestsRepository(db).lobbyPage({
          status: 'open',
          category: 'sports',
          after: { createdAtMs: 1_700_000_000_000, id: U1 },
          limit: 21,
        }),
    ],
    ['ContestsRepository.lobbyCursorKey', (db) => new ContestsRepository(db).lobbyCursorKey()],
    ['ContestsRepository.marketsOf', (db) => new ContestsRepository(db).marketsOf(U1)],
    ['ContestsRepository.marketForUpdate', (db) => new ContestsRepository(db).marketForUpdate(7)],
    ['ContestsRepository.marketOwner', (db) => new ContestsRepository(db).marketOwner(7)],
    ['ContestsRepository.marketStatuses', (db) => new ContestsRepository(db).marketStatuses(U1)],
    ['ContestsRepository.scoreCounts', (db) => new ContestsRepository(db).scoreCounts(U1)],
    ['ContestsRepository.rebuildScoreCounts', (db) => new ContestsRepository(db).rebuildScoreCounts(U1)],
    [
      'ContestsRepository.insertContest',
      (db) =>
        new ContestsRepository(db).insertContest({
          id: U1,
          title: 'Weekend lineups',
          category: 'sports',
          game_type: 'lineups',
          description: null,
          bet_amount: 5_000_000n,
          protocol_prize_pool: 0n,
          entry_cap: 100,
          max_entries_per_user: 1,
          open_market_count: 2,
          entry_opens_at_ms: null,
          betting_closes_ms: 1_700_000_000_000,
          live_ends_at_ms: null,
          bet_type_kind: 'num_bets',
          bet_type_value: 2,
          winning_split_bps: [10_000],
          image_id: null,
          entry_visibility: 'visible',
          created_at_ms: 1_699_990_000_000,
        }),
    ],
    ['ContestsRepository.newContestMarketIds', (db) => new ContestsRepository(db).newContestMarketIds(2)],
    [
      'ContestsRepository.insertMarkets',
      (db) =>
        new ContestsRepository(db).insertMarkets([
          {
            market_id: 7n,
            contest_id: U1,
            position: 0,
            category: 'sports',
            name: 'Home wins',
            description: null,
            source_kind: null,
            source_event_id: null,
            source_market_id: null,
            betting_closes_at_ms: null,
            live_ends_at_ms: null,
            resolution_time_ms: null,
          },
        ]),
    ],
    [
      'ContestsRepository.setMarketResolution',
      (db) => new ContestsRepository(db).setMarketResolution(7, 'RESOLVED', 'YES', 1_700_000_000_000),
    ],
    ['ContestsRepository.countVoidedLeg', (db) => new ContestsRepository(db).countVoidedLeg(7)],
    ['ContestsRepository.countResolvedLeg', (db) => new ContestsRepository(db).countResolvedLeg(7, 'up', true)],
    ['ContestsRepository.decrementOpenMarkets', (db) => new ContestsRepository(db).decrementOpenMarkets(U1)],
    ['ContestsRepository.entriesForSettlement', (db) => new ContestsRepository(db).entriesForSettlement(U1)],
    ['ContestsRepository.setPayouts', (db) => new ContestsRepository(db).setPayouts([U1, U2], [700n, 0n], [1, 2])],
    ['ContestsRepository.markResolved', (db) => new ContestsRepository(db).markResolved(U1, 1_700_000_000_000)],
    ['ContestsRepository.markVoided', (db) => new ContestsRepository(db).markVoided(U1, 1_700_000_000_000)],
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
          fromMs: 1_699_395_200_000,
          toMs: 1_700_000_000_000,
          limit: 10,
        }),
    ],
    [
      'ContestBoardsRepository.resolutionTimesAround',
      (db) =>
        new ContestBoardsRepository(db).resolutionTimesAround({
          category: 'sports',
          gameType: 'lineups',
          fromMs: 1_699_395_200_000,
          toMs: 1_700_000_000_000,
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
};
