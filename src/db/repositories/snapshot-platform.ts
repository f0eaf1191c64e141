// Identity, markets, market makers, heartbeats and the operator audit: the repositories' sample calls for the SQL snapshots (src/queries/<feature>.sql); snapshot.ts merges them.
import type { Db } from '../schema.js';
import { HeartbeatsRepository } from './heartbeats.repository.js';
import { IdentityRepository } from './identity.repository.js';
import { MarketMakersRepository } from './market-makers.repository.js';
import { MarketsRepository } from './markets.repository.js';
import { MmProtectionsRepository } from './mm-protections.repository.js';
import { OperatorAuditRepository } from './operator-audit.repository.js';
import { SharedLimitsRepository } from './shared-limits.repository.js';
import { SystemRepository } from './system.repository.js';
import { UserEventsRepository } from './user-events.repository.js';
import { U1, U2, WALLET, PRIVY } from './snapshot-samples.js';

export const PLATFORM_CATALOG: Record<string, Array<[string, (db: Db) => Promise<unknown>]>> = {
  markets: [
    [
      'MarketsRepository.insertWindows',
      (db) => new MarketsRepository(db).insertWindows([{ asset: 'BTC', durationSecs: 60, startAtMs: 1_700_000_040_000 }]),
    ],
    [
      'MarketsRepository.findWindow',
      (db) => new MarketsRepository(db).findWindow({ asset: 'BTC', durationSecs: 60, startAtMs: 1_700_000_040_000 }),
    ],
  ],
  'user-events': [
    ['UserEventsRepository.eventsAfter', (db) => new UserEventsRepository(db).eventsAfter(U1, 5, 500)],
    ['UserEventsRepository.heads', (db) => new UserEventsRepository(db).heads([U1, U2])],
    ['UserEventsRepository.prune', (db) => new UserEventsRepository(db).prune(1_700_000_000_000, 10_000)],
  ],
  'market-makers': [
    ['MarketMakersRepository.register', (db) => new MarketMakersRepository(db).register(WALLET, 'Demo MM')],
    ['MarketMakersRepository.remove', (db) => new MarketMakersRepository(db).remove(WALLET)],
    ['MarketMakersRepository.revokeSessions', (db) => new MarketMakersRepository(db).revokeSessions(WALLET)],
    [
      'MarketMakersRepository.insertSessionIfActive',
      (db) =>
        new MarketMakersRepository(db).insertSessionIfActive({
          id: U1,
          tokenHash: Buffer.alloc(32),
          walletAddress: WALLET,
          ttlMs: 86_400_000,
        }),
    ],
    ['MarketMakersRepository.endedSessions', (db) => new MarketMakersRepository(db).endedSessions([U1, U2])],
    ['MarketMakersRepository.withdrawLiveQuotes', (db) => new MarketMakersRepository(db).withdrawLiveQuotes(WALLET)],
  ],
  'mm-protections': [
    [
      'MmProtectionsRepository.set',
      (db) =>
        new MmProtectionsRepository(db).set(WALLET.toLowerCase(), {
          intervalMs: 60_000,
          maxFills: 10,
          maxLiability: 50_000_000n,
          nowMs: 1_700_000_000_000,
        }),
    ],
    ['MmProtectionsRepository.reset', (db) => new MmProtectionsRepository(db).reset(WALLET.toLowerCase(), 1_700_000_000_000)],
    ['MmProtectionsRepository.get', (db) => new MmProtectionsRepository(db).get(WALLET.toLowerCase())],
  ],
  'shared-limits': [
    ['SharedLimitsRepository.incrementCounter', (db) => new SharedLimitsRepository(db).incrementCounter('ip:192.0.2.7', 60_000)],
    ['SharedLimitsRepository.decrementCounter', (db) => new SharedLimitsRepository(db).decrementCounter('ip:192.0.2.7')],
    ['SharedLimitsRepository.deleteCounter', (db) => new SharedLimitsRepository(db).deleteCounter('ip:192.0.2.7')],
    [
      'SharedLimitsRepository.takeSlot',
      (db) => new SharedLimitsRepository(db).takeSlot({ ip: '192.0.2.7', holder: `${U1}:${U2}`, process: U1, ttlMs: 30_000, max: 8 }),
    ],
    ['SharedLimitsRepository.renewSlots', (db) => new SharedLimitsRepository(db).renewSlots(U1, 30_000)],
    ['SharedLimitsRepository.dropSlot', (db) => new SharedLimitsRepository(db).dropSlot('192.0.2.7', `${U1}:${U2}`)],
  ],
  system: [
    ['SystemRepository.ping', (db) => new SystemRepository(db).ping()],
    ['SystemRepository.operationsWaiting', (db) => new SystemRepository(db).operationsWaiting()],
    ['SystemRepository.ensureServiceKey', (db) => new SystemRepository(db).ensureServiceKey('deployment_id', Buffer.alloc(32))],
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
    ['IdentityRepository.unrevokedSessions', (db) => new IdentityRepository(db).unrevokedSessions([U1, U2])],
    ['IdentityRepository.revokeSession', (db) => new IdentityRepository(db).revokeSession(U2)],
    ['IdentityRepository.insertNonce', (db) => new IdentityRepository(db).insertNonce('0'.repeat(32), 300)],
    ['IdentityRepository.purgeExpiredNonces', (db) => new IdentityRepository(db).purgeExpiredNonces()],
    ['IdentityRepository.consumeNonce', (db) => new IdentityRepository(db).consumeNonce('0'.repeat(32))],
    ['IdentityRepository.pruneSessionsBatch', (db) => new IdentityRepository(db).pruneSessionsBatch(3_600_000, 5_000)],
    ['IdentityRepository.pruneNoncesBatch', (db) => new IdentityRepository(db).pruneNoncesBatch(5_000)],
    ['IdentityRepository.pruneLimitsBatch', (db) => new IdentityRepository(db).pruneLimitsBatch(5_000)],
  ],
  heartbeats: [
    [
      'HeartbeatsRepository.record',
      (db) =>
        new HeartbeatsRepository(db).record({ workerId: 'w1', hostname: 'h', pid: 1, startedAt: new Date(0), lastSeenAt: new Date(0) }),
    ],
    ['HeartbeatsRepository.latest', (db) => new HeartbeatsRepository(db).latest()],
    ['HeartbeatsRepository.recent', (db) => new HeartbeatsRepository(db).recent(100)],
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
