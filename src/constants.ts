// Fixed product values that configuration validation and the domain both read. The bottom floor: it imports
// nothing, so src/config/ never has to import the domain (imports point down: http, ws, workers -> domain -> db).

/** Base prices of the demo feed in micros (docs/trading.md, "The price rule"; published in spec/openapi.yaml getMarket). An asset without a base has no demo price. */
export const DEMO_BASES_MICROS: Readonly<Record<string, bigint>> = Object.freeze({
  BTC: 100_000_000_000n,
  ETH: 3_000_000_000n,
  SOL: 150_000_000n,
  XRP: 2_000_000n,
  HYPE: 30_000_000n,
});

/** Distinct parameterised statements run as named (prepared) ones per ORM pool (DATABASE_PREPARED_STATEMENTS). */
export const PREPARED_STATEMENTS_DEFAULT = 500;

export const DEMO_PRICE_SEED_DEFAULT = 'demo';
export const DEMO_PRICE_SPREAD_BPS_DEFAULT = 50;

/** Time the server keeps between the end of the quote window and the deadline (Longshot PROCESSING_BUFFER_MS). */
export const PROCESSING_BUFFER_MS = 100;

/**
 * How long an API process serves a public contest read (lobby, contest, leaderboard, top participants,
 * popular entry) from its page cache. Writes through this process show at once (`contests.changed`); writes
 * through another process when its bus message arrives, at the latest after this long if it is lost.
 */
export const CONTEST_PAGE_TTL_MS = 1000;

/**
 * RFQ_EIP712_SALT outside production: keccak256("contest-rfq-service development deployment"). Orders and
 * quotes signed for it are valid on every development and test deployment, never in production (where
 * RFQ_EIP712_SALT is required and this value is refused). See docs/fill-path.md.
 */
export const RFQ_EIP712_SALT_DEV = '0x8d5d28a7520b2fce0220b78bd608db6c5be909e11e680da4203c9aadfd8911e4';
