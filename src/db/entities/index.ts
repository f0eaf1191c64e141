// Every table the migrations create (42), described once. Migrations (src/db/migrations) stay the only source
// Every table the migrations create (43), described once. Migrations (src/db/migrations) stay the only source
// of DDL: these schemas drive the ORM and the Kysely types (src/db/schema.ts), and src/db/schema.db.test.ts
// fails when a migration and an entity disagree on a table, a column, its type or its nullability.
import { WorkerHeartbeat, WorkerHeartbeatSchema } from './worker-heartbeat.entity.js';
import { UserSchema } from './user.entity.js';
import { SessionSchema } from './session.entity.js';
import { WalletNonceSchema } from './wallet-nonce.entity.js';
import { MarketSchema } from './market.entity.js';
import { MarketMakerSchema, MmProtectionSchema } from './market-maker.entity.js';
import { LedgerAccountSchema, LedgerEntrySchema, LedgerTransactionSchema } from './ledger.entity.js';
import {
  IdempotencyKeySchema,
  OperationOutboxSchema,
  OperationSchema,
  SettlementResolutionSchema,
  WithdrawalReviewSchema,
} from './money.entity.js';
import { ChainNonceSchema, ChainTransactionSchema } from './chain.entity.js';
import {
  ChainCursorSchema,
  ChainDepositSchema,
  ChainObservationSchema,
  DepositAddressSchema,
  DepositSweepSchema,
} from './custodial.entity.js';
import { ColdSweepSchema } from './cold-sweep.entity.js';
import { PoolImageSchema, ServiceKeySchema } from './pool-image.entity.js';
import { OperatorAuditSchema } from './operator-audit.entity.js';
import { RateLimitCounterSchema, WsConnectionSlotSchema } from './shared-limits.entity.js';
import {
  PositionFillSchema,
  PositionLegSchema,
  PositionSchema,
  RfqQuoteSchema,
  RfqSchema,
  TradingStatsSchema,
  WindowResolutionSchema,
} from './rfq.entity.js';
import { PriceObservationSchema, PriceSourceHealthSchema, WindowPriceCheckSchema, WindowPriceReadingSchema } from './prices.entity.js';
import { UserEventHeadSchema, UserEventSchema } from './user-event.entity.js';
import {
  ContestEntryPickSchema,
  ContestEntrySchema,
  ContestMarketSchema,
  ContestSchema,
  ContestScoreCountSchema,
} from './contest.entity.js';

export { WorkerHeartbeat };

/** The schema objects, one per table (the Kysely DB type is inferred from this tuple). */
export const schemas = [
  WorkerHeartbeatSchema,
  UserSchema,
  SessionSchema,
  WalletNonceSchema,
  MarketSchema,
  MarketMakerSchema,
  MmProtectionSchema,
  LedgerAccountSchema,
  LedgerTransactionSchema,
  LedgerEntrySchema,
  OperationSchema,
  OperationOutboxSchema,
  SettlementResolutionSchema,
  WithdrawalReviewSchema,
  IdempotencyKeySchema,
  PoolImageSchema,
  ServiceKeySchema,
  ContestSchema,
  ContestMarketSchema,
  ContestEntrySchema,
  ContestEntryPickSchema,
  ContestScoreCountSchema,
  RateLimitCounterSchema,
  WsConnectionSlotSchema,
  RfqSchema,
  RfqQuoteSchema,
  PositionSchema,
  PositionLegSchema,
  PositionFillSchema,
  WindowResolutionSchema,
  TradingStatsSchema,
  OperatorAuditSchema,
  ChainNonceSchema,
  ChainTransactionSchema,
  WindowPriceCheckSchema,
  WindowPriceReadingSchema,
  PriceSourceHealthSchema,
  PriceObservationSchema,
  DepositAddressSchema,
  ChainCursorSchema,
  ChainDepositSchema,
  DepositSweepSchema,
  ColdSweepSchema,
  ChainObservationSchema,
  UserEventHeadSchema,
  UserEventSchema,
] as const;

/** Every entity the ORM knows; migrations (not schema sync) create their tables. */
export const entities = [...schemas];
