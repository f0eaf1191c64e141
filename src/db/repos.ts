// The repositories of one unit of work, bound once: `repos(tx).ledger.post(...)`, or `const r = repos(tx);` where
// a function uses several. Every repository of src/db/repositories is a member, built on first use from the
// em's Kysely (db(em), src/db/schema.ts) and kept for the next call with the same em.
//
// Why the cache is keyed by the em *and* the Kysely it gives now (MikroORM 7, @mikro-orm/sql SqlEntityManager
// getKysely and @mikro-orm/core EntityManager, TransactionManager): `em.getKysely()` returns the transaction
// context of `em.getContext(false)` when it has one, else the pool's client. For the em `em.transactional(cb)`
// hands to `cb` (a fork with useContext false) that is its own transaction, fixed for the callback's life; a
// nested `tx.transactional` forks again (a savepoint on a new em), so `tx` itself never changes. A plain fork
// outside a transaction stays on the pool: `fork.transactional(...)` runs on a new fork and leaves it as it was.
// But the binding is not fixed for every em: `em.begin()` / `commit()` / `rollback()` set and clear the em's own
// transaction context, a REQUIRES_NEW transaction suspends its parent's for a while, and the global `orm.em`
// (useContext true) resolves to whatever em the async context holds (a TransactionContext inside
// `orm.em.transactional`, else a RequestContext's). So `repos(em)` reads `db(em)` on every call (a property read,
// no query) and reuses the cached object only when it was built from that same Kysely; otherwise it builds a new
// one. A caller therefore gets exactly what `new XRepository(db(em))` would give at the same moment.
import type { Em } from './orm.js';
import { db, type Db } from './schema.js';
import { ChainObservationsRepository } from './repositories/chain-observations.repository.js';
import { ChainTxRepository } from './repositories/chain-tx.repository.js';
import { ChainRepository } from './repositories/chain.repository.js';
import { ColdSweepRepository } from './repositories/cold-sweep.repository.js';
import { ContestBoardsRepository } from './repositories/contest-boards.repository.js';
import { ContestsRepository } from './repositories/contests.repository.js';
import { CustodialRepository } from './repositories/custodial.repository.js';
import { DemoRepository } from './repositories/demo.repository.js';
import { EntriesRepository } from './repositories/entries.repository.js';
import { FillsRepository } from './repositories/fills.repository.js';
import { HeartbeatsRepository } from './repositories/heartbeats.repository.js';
import { IdempotencyRepository } from './repositories/idempotency.repository.js';
import { IdentityRepository } from './repositories/identity.repository.js';
import { LedgerCheckRepository } from './repositories/ledger-check.repository.js';
import { LedgerRepository } from './repositories/ledger.repository.js';
import { MarketMakersRepository } from './repositories/market-makers.repository.js';
import { MarketsRepository } from './repositories/markets.repository.js';
import { MmProtectionsRepository } from './repositories/mm-protections.repository.js';
import { OperationHistoryRepository } from './repositories/operation-history.repository.js';
import { OperationsRepository } from './repositories/operations.repository.js';
import { OperatorAuditRepository } from './repositories/operator-audit.repository.js';
import { PoolImagesRepository } from './repositories/pool-images.repository.js';
import { PositionsRepository } from './repositories/positions.repository.js';
import { PriceSourcesRepository } from './repositories/price-sources.repository.js';
import { PricesRepository } from './repositories/prices.repository.js';
import { RfqQuotesRepository } from './repositories/rfq-quotes.repository.js';
import { RfqRepository } from './repositories/rfq.repository.js';
import { SettlementRepository } from './repositories/settlement.repository.js';
import { SharedLimitsRepository } from './repositories/shared-limits.repository.js';
import { StatementRepository } from './repositories/statement.repository.js';
import { SystemRepository } from './repositories/system.repository.js';
import { UserEventsRepository } from './repositories/user-events.repository.js';
import { WithdrawalsRepository } from './repositories/withdrawals.repository.js';

/** Each member of Repos: its name and its class (constructed with the unit of work's Db). */
const classes = {
  chainObservations: ChainObservationsRepository,
  chainTx: ChainTxRepository,
  chain: ChainRepository,
  coldSweep: ColdSweepRepository,
  contestBoards: ContestBoardsRepository,
  contests: ContestsRepository,
  custodial: CustodialRepository,
  demo: DemoRepository,
  entries: EntriesRepository,
  fills: FillsRepository,
  heartbeats: HeartbeatsRepository,
  idempotency: IdempotencyRepository,
  identity: IdentityRepository,
  ledgerCheck: LedgerCheckRepository,
  ledger: LedgerRepository,
  marketMakers: MarketMakersRepository,
  markets: MarketsRepository,
  mmProtections: MmProtectionsRepository,
  operationHistory: OperationHistoryRepository,
  operations: OperationsRepository,
  operatorAudit: OperatorAuditRepository,
  poolImages: PoolImagesRepository,
  positions: PositionsRepository,
  priceSources: PriceSourcesRepository,
  prices: PricesRepository,
  rfqQuotes: RfqQuotesRepository,
  rfq: RfqRepository,
  settlement: SettlementRepository,
  sharedLimits: SharedLimitsRepository,
  statement: StatementRepository,
  system: SystemRepository,
  userEvents: UserEventsRepository,
  withdrawals: WithdrawalsRepository,
};

type Name = keyof typeof classes;
export type Repos = { readonly [K in Name]: InstanceType<(typeof classes)[K]> };

/** The object behind Repos: one lazy getter per repository on the prototype, each instance built once. */
class Bound {
  readonly built: { [K in Name]?: Repos[K] } = {};
  constructor(readonly db: Db) {}
}
for (const name of Object.keys(classes) as Name[]) {
  const Repository = classes[name];
  Object.defineProperty(Bound.prototype, name, {
    get(this: Bound) {
      return (this.built[name] ??= new Repository(this.db) as never);
    },
  });
}

const cache = new WeakMap<Em, Bound>();

/** The repositories bound to `em`'s current unit of work (its transaction when one is open, else the pool). */
export function repos(em: Em): Repos {
  const d = db(em);
  const hit = cache.get(em);
  if (hit && hit.db === d) return hit as unknown as Repos;
  const fresh = new Bound(d);
  cache.set(em, fresh);
  return fresh as unknown as Repos;
}
