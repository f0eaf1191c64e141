// The trading repositories' sample calls for the SQL snapshots (src/queries/{rfq,fills,positions,prices}.sql);
// snapshot.ts merges them into its catalog.
import type { Db } from '../schema.js';
import { FillsRepository } from './fills.repository.js';
import { PositionsRepository } from './positions.repository.js';
import { PricesRepository } from './prices.repository.js';
import { RfqQuotesRepository } from './rfq-quotes.repository.js';
import { RfqRepository } from './rfq.repository.js';

const U1 = '00000000-0000-4000-8000-000000000001';
const U2 = '00000000-0000-4000-8000-000000000002';
const WALLET = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

export const TRADING_CATALOG: Record<string, Array<[string, (db: Db) => Promise<unknown>]>> = {
  rfq: [
    ['RfqRepository.windows', (db) => new RfqRepository(db).windows([1042, 1043])],
    ['RfqRepository.byNonce', (db) => new RfqRepository(db).byNonce(WALLET.toLowerCase(), 7)],
    ['RfqRepository.lockUser', (db) => new RfqRepository(db).lockUser(U1)],
    ['RfqRepository.countOpen', (db) => new RfqRepository(db).countOpen(U1)],
    [
      'RfqRepository.create',
      (db) =>
        new RfqRepository(db).create(
          {
            id: U1,
            takerUserId: U2,
            takerAddress: WALLET.toLowerCase(),
            nonce: 7,
            orderHash: `0x${'ab'.repeat(32)}`,
            signature: `0x${'cd'.repeat(65)}`,
            legs: [],
            stake: 10_000_000n,
            minOddsBps: 15_000,
            orderType: 'FOK',
            fillMode: 'best',
            deadlineMs: 1_700_000_030_000,
            quoteDeadlineMs: 1_700_000_000_500,
            expiresAtMs: 1_700_000_030_000,
            dueAtMs: 1_700_000_000_500,
            createdAtMs: 1_700_000_000_000,
            idempotencyKey: U2,
          },
          10,
          U1,
        ),
    ],
    ['RfqRepository.get', (db) => new RfqRepository(db).get(U1)],
    ['RfqRepository.get.forUpdate', (db) => new RfqRepository(db).get(U1, 'update')],
    ['RfqRepository.get.forShare', (db) => new RfqRepository(db).get(U1, 'share')],
    ['RfqRepository.page', (db) => new RfqRepository(db).page(U1, null, null, 51)],
    ['RfqRepository.page.after', (db) => new RfqRepository(db).page(U1, 'open', { createdAtMs: 1_700_000_000_000, id: U2 }, 51)],
    ['RfqRepository.due', (db) => new RfqRepository(db).due(1_700_000_000_000, 500)],
    ['RfqRepository.quotes', (db) => new RfqRepository(db).quotes([U1])],
    ['RfqRepository.makerQuotes', (db) => new RfqRepository(db).makerQuotes(U1, WALLET.toLowerCase())],
    ['RfqRepository.makerLiveQuotes', (db) => new RfqRepository(db).makerLiveQuotes(WALLET.toLowerCase(), 100)],
    ['RfqRepository.lockForClose', (db) => new RfqRepository(db).lockForClose(U1)],
    [
      'RfqQuotesRepository.recordQuote',
      (db) =>
        new RfqQuotesRepository(db).recordQuote({
          id: U2,
          rfqId: U1,
          makerAddress: WALLET.toLowerCase(),
          clientQuoteId: null,
          oddsBps: 20_000,
          maxFill: 10_000_000n,
          validUntilMs: 1_700_000_010_000,
          signature: `0x${'cd'.repeat(65)}`,
          receivedAtMs: 1_700_000_000_100,
        }),
    ],
    ['RfqQuotesRepository.rejectLive', (db) => new RfqQuotesRepository(db).rejectLive(U1, U2, 'insufficient_collateral')],
    ['RfqQuotesRepository.cancelQuote', (db) => new RfqQuotesRepository(db).cancelQuote(U1, U2, WALLET.toLowerCase())],
  ],
  fills: [
    [
      'FillsRepository.closeWrites.expired',
      (db) =>
        new FillsRepository(db).closeWrites({
          rfqId: U1,
          close: {
            status: 'expired',
            closedAtMs: 1_700_000_000_500,
            closeReason: 'no_quotes',
            filledStake: 0n,
            payout: null,
            oddsBps: null,
            positionId: null,
          },
          outcomes: [{ id: U2, status: 'not_filled', reason: 'rfq_expired', filledStake: 0n }],
          position: null,
          ledger: null,
          lockAccounts: ['7', '8'],
        }),
    ],
    [
      'FillsRepository.closeWrites.filled',
      (db) =>
        new FillsRepository(db).closeWrites({
          rfqId: U1,
          close: {
            status: 'filled',
            closedAtMs: 1_700_000_000_500,
            closeReason: null,
            filledStake: 10_000_000n,
            payout: 20_000_000n,
            oddsBps: 20_000,
            positionId: U2,
          },
          outcomes: [{ id: U2, status: 'filled', reason: null, filledStake: 10n }],
          position: {
            id: U2,
            rfqId: U1,
            takerUserId: U1,
            takerAddress: WALLET.toLowerCase(),
            stake: 10n,
            payout: 20n,
            oddsBps: 20_000,
            createdAtMs: 1_700_000_000_500,
            legs: [{ marketId: 1042, direction: 'up' }],
            fills: [
              {
                id: U1,
                quoteId: U2,
                makerAddress: WALLET.toLowerCase(),
                makerUserId: U2,
                stake: 10n,
                oddsBps: 20_000,
                payout: 20n,
                liability: 10n,
              },
            ],
            stats: [{ owner: `user:${U1}`, openCount: 1, openStake: 10n, potentialPayout: 20n }],
          },
          ledger: null,
          lockAccounts: ['7', '8'],
          makerFills: [{ maker: WALLET.toLowerCase(), liability: 10n }],
        }),
    ],
  ],
  positions: [
    ['PositionsRepository.window', (db) => new PositionsRepository(db).window(1042)],
    [
      'PositionsRepository.insertResolution',
      (db) =>
        new PositionsRepository(db).insertResolution({
          marketId: 1042,
          outcome: 'YES',
          openPrice: 100_000_000_000n,
          closePrice: 100_000_100_000n,
          source: 'demo',
          resolvedBy: 'feed',
          resolvedAtMs: 1_700_000_302_000,
        }),
    ],
    [
      'PositionsRepository.windowsToResolve',
      (db) => new PositionsRepository(db).windowsToResolve(1_700_000_000_000, 100, 1_700_000_002_000),
    ],
    ['PositionsRepository.lockBatch', (db) => new PositionsRepository(db).lockBatch(1042, 1000)],
    ['PositionsRepository.applyOutcome', (db) => new PositionsRepository(db).applyOutcome(1042, 'YES', [U1])],
    ['PositionsRepository.positionsWithLegs', (db) => new PositionsRepository(db).positionsWithLegs([U1])],
    ['PositionsRepository.fillsOf', (db) => new PositionsRepository(db).fillsOf([U1])],
    [
      'PositionsRepository.settlePositions',
      (db) => new PositionsRepository(db).settlePositions([{ id: U1, status: 'won', pnl: 10n }], 1_700_000_302_000, U2),
    ],
    ['PositionsRepository.setMakerPnl', (db) => new PositionsRepository(db).setMakerPnl([{ id: U1, pnl: -10n }])],
    [
      'PositionsRepository.bumpSettledStats',
      (db) =>
        new PositionsRepository(db).bumpSettledStats([
          {
            owner: `user:${U1}`,
            openCount: -1,
            openStake: -10n,
            potentialPayout: -20n,
            settled: 1,
            wins: 1,
            losses: 0,
            voided: 0,
            pnl: 10n,
          },
        ]),
    ],
    ['PositionsRepository.stats', (db) => new PositionsRepository(db).stats(`user:${U1}`)],
    ['PositionsRepository.userIdByWallet', (db) => new PositionsRepository(db).userIdByWallet(WALLET)],
    ['PositionsRepository.page', (db) => new PositionsRepository(db).page(U1, null, null, 51)],
    [
      'PositionsRepository.page.after',
      (db) => new PositionsRepository(db).page(U1, 'open', { createdAtMs: 1_700_000_000_000, id: U2 }, 51),
    ],
    ['PositionsRepository.position', (db) => new PositionsRepository(db).position(U1)],
    ['PositionsRepository.legsOf', (db) => new PositionsRepository(db).legsOf([U1])],
    ['PositionsRepository.pnlEvents', (db) => new PositionsRepository(db).pnlEvents(U1, 0, 1_700_000_000_000, null, 51)],
    ['PositionsRepository.makerFills', (db) => new PositionsRepository(db).makerFills(WALLET.toLowerCase(), null, null, 51)],
  ],
  prices: [
    [
      'PricesRepository.insertCheck',
      (db) =>
        new PricesRepository(db).insertCheck(
          {
            marketId: 1042,
            state: 'agreed',
            reason: null,
            quorum: 2,
            sources: ['chainlink', 'binance', 'coinbase'],
            maxAgeMs: 60_000,
            checkedAtMs: 1_700_000_302_000,
            voidAtMs: null,
          },
          [
            {
              source: 'binance',
              verdict: 'YES',
              openPrice: 100_000_000_000n,
              openObservedAtMs: 1_699_999_999_999,
              openRef: 'kline:1699999999000',
              closePrice: 100_000_100_000n,
              closeObservedAtMs: 1_700_000_299_999,
              closeRef: 'kline:1700000299000',
              closeConfidence: null,
              openConfidence: null,
              reason: null,
              maxAgeMs: 2_000,
              error: null,
            },
          ],
        ),
    ],
    ['PricesRepository.readings', (db) => new PricesRepository(db).readings(1042)],
    [
      'PricesRepository.addHealth',
      (db) =>
        new PricesRepository(db).addHealth([
          { source: 'binance', requests: 2, failures: 1, latencyMs: 120, atMs: 1_700_000_302_000, error: 'HTTP 451', blocked: 'HTTP 451' },
        ]),
    ],
    ['PricesRepository.health', (db) => new PricesRepository(db).health()],
  ],
};
