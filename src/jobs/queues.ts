// Queue nouns, job names, payloads and timings, shared by producers (src/) and processors (workers/); which
// job runs on which queue with which payload: job-table.ts.
export const QUEUE = {
  /** Housekeeping: worker heartbeats (later: idempotency-key pruning). */
  system: 'system',
  /** RFQ market windows: the rollover that creates the current and next windows ahead of time. */
  marketWindows: 'market-windows',
  /** Money: settle-operation jobs (jobId = operation id) and the outbox relay. */
  settlement: 'settlement',
  /** Money housekeeping: pruning idempotency keys older than their retention. */
  idempotency: 'idempotency',
  /** Contests: resolve-contest jobs (jobId = contest id) and the relay that finds contests left unresolved. */
  contests: 'contests',
  /** Housekeeping: pruning expired sessions and used or expired wallet nonces. */
  housekeeping: 'housekeeping',
  /** RFQ windows: resolve-window jobs (jobId = window-<market id>), the relay that finds ended windows with open legs, and the price sources' probes. */
  marketResolution: 'market-resolution',
  /** RFQ trading: the sweeper that closes RFQs whose owner process died (its timer went with it). */
  rfq: 'rfq',
  /** Custodial deposits (SETTLEMENT_MODE=onchain with DEPOSIT_MNEMONIC): the listener's scans and the sweeps; the cold-wallet sweep (HOT_WALLET_MAX_MICROS). */
  chainDeposits: 'chain-deposits',
} as const;
export type QueueNoun = (typeof QUEUE)[keyof typeof QUEUE];

export const JOB = {
  recordHeartbeat: 'record-heartbeat',
  rollWindows: 'roll-windows',
  settleOperation: 'settle-operation',
  relayOutbox: 'relay-outbox',
  pruneIdempotencyKeys: 'prune-idempotency-keys',
  resolveContest: 'resolve-contest',
  relayResolutions: 'relay-resolutions',
  pruneExpiredAuth: 'prune-expired-auth',
  pruneUserEvents: 'prune-user-events',
  resolveWindow: 'resolve-window',
  relayWindowResolutions: 'relay-window-resolutions',
  probePriceSources: 'probe-price-sources',
  sweepRfqs: 'sweep-rfqs',
  scanDeposits: 'scan-deposits',
  sweepDeposits: 'sweep-deposits',
  coldSweep: 'cold-sweep',
  reconcileChain: 'reconcile-chain',
} as const;

/** The payload of every scheduled job (src/jobs/schedulers.ts). */
export interface ScheduledJob {
  /** Unix ms when the job was requested (scheduler tick or a manual probe). */
  requested_at_ms: number;
}

export const HEARTBEAT_EVERY_MS = 10_000;
/** Workers check this often that every job scheduler exists (and at once when the queue connection returns). */
export const SCHEDULER_CHECK_EVERY_MS = 15_000;

/** Rollover period: well below the shortest window, so the next window always exists before it starts. */
export const ROLL_WINDOWS_EVERY_MS = 30_000;

export interface SettleOperationJob {
  operation_id: string;
}

/** Settlement jobs: retried with exponential backoff (1 s, 2 s, 4 s...) before the relay takes over. */
export const SETTLE_ATTEMPTS = 8;
export const SETTLE_BACKOFF_MS = 1_000;
/** The outbox relay runs this often and re-enqueues operations still pending after RELAY_AFTER_MS. */
export const RELAY_OUTBOX_EVERY_MS = 5_000;
export const RELAY_AFTER_MS = 5_000;
export const PRUNE_IDEMPOTENCY_EVERY_MS = 3_600_000;
/** Expired sessions and used or expired wallet nonces are deleted this often (workers/housekeeping.worker.ts). */
export const PRUNE_AUTH_EVERY_MS = 600_000;
/** The user channel's event log loses events older than USER_EVENTS_RETENTION_MS this often (prune-user-events). */
export const PRUNE_USER_EVENTS_EVERY_MS = 600_000;

export interface ResolveContestJob {
  contest_id: string;
}

/** Resolution relay: open contests with no OPEN market left are (re-)enqueued this often. */
export const RELAY_RESOLUTIONS_EVERY_MS = 5_000;
export const RESOLVE_ATTEMPTS = 8;

export interface ResolveWindowJob {
  market_id: number;
}

/** Window-resolution relay period (docs/trading.md, "Resolution and settlement"): ended windows with pending legs are (re-)enqueued this often. */
export const RELAY_WINDOW_RESOLUTIONS_EVERY_MS = 5_000;
/** resolve-window attempts (exponential from 1 s: about 4 minutes) before the relay re-enqueues it. */
export const RESOLVE_WINDOW_ATTEMPTS = 8;
/** The price sources' probes' default cadence; PRICE_PROBE_EVERY_MS (config.prices.probeEveryMs) sets the running one. */
export const PROBE_PRICE_SOURCES_EVERY_MS = 60_000;

/**
 * The RFQ sweeper's default cadence; RFQ_SWEEP_EVERY_MS (config.rfq.sweepEveryMs) sets the running one
 * (workers/start.ts). It closes open RFQs due more than RFQ_SWEEP_GRACE_MS ago, at most RFQ_SWEEP_BATCH
 * per tick: the grace leaves each RFQ to the timer of the process that created it, unless that one died.
 */
export const RFQ_SWEEP_EVERY_MS = 1_000;
export const RFQ_SWEEP_GRACE_MS = 250;
export const RFQ_SWEEP_BATCH = 500;

/**
 * The custodial deposit listener's and sweeper's default cadence; CHAIN_DEPOSIT_SCAN_EVERY_MS sets the running
 * one (workers/start.ts). Without onchain settlement and DEPOSIT_MNEMONIC their jobs do nothing.
 */
export const DEPOSIT_SCAN_EVERY_MS = 5_000;
/** The chain observation's default cadence (reconcile-chain); CHAIN_RECONCILE_EVERY_MS sets the running one. */
export const RECONCILE_CHAIN_EVERY_MS = 60_000;
