// A market maker on the contest-rfq-service WebSocket (spec/asyncapi.yaml), with the SDK package
// (@contest-rfq/sdk, sdk/): it authenticates, answers every ping with a pong, subscribes to RFQs and quotes
// every RFQ it receives with a simple strategy, and when the connection closes (session expiry after
// AUTH_EXPIRED, a restart of the service, a network failure) reconnects with exponential backoff, a fresh
// challenge and the same subscription. It gives up (exit code 3) when retrying cannot help: the operator
// removed the market maker (close 4004) or never registered the wallet (`unknown_market_maker`).
//
//   MM_PRIVATE_KEY=0x... WS_URL=ws://localhost:3000/v1/ws npx tsx examples/market-maker-client.ts
//
// Strategy: every leg of the demo price feed (PRICE_FEED=demo, src/domain/prices/demo.ts) is a coin flip
// (up iff a hash-derived close price is above the open one: ~50%), so an n-leg parlay pays fair odds of
// 2^n (20000 bps for one leg). The quote is fair odds less MM_SPREAD_BPS of them (500 = 5% below fair,
// 19000 bps for one leg), for min(stake, MM_MAX_FILL_MICROS), firm until the RFQ expires. Fills reserve
// the liability from the balance of the user whose wallet is this market maker's (sign in with SIWE and
// deposit first, or quotes are refused with insufficient_collateral).
//
// Optional: MM_SPREAD_BPS (500), MM_MAX_FILL_MICROS (100000000 = 100 USDC), MM_ASSETS / MM_DURATIONS
// (comma lists; default all), MM_AUTH_DOMAIN (when the deployment configured another 35-byte domain),
// RFQ_EIP712_NAME / RFQ_SIGNING_CHAIN_ID (when the deployment signs with another EIP-712 domain; see GET
// /v1/rfq/typed-data). The session token it prints is the bearer token for the market-maker HTTP routes, e.g.
//   curl -H "Authorization: Bearer <token>" localhost:3000/v1/mm/pnl            (your own PnL)
//   curl -H "Authorization: Bearer <token>" "localhost:3000/v1/mm/taker_pnl?wallet=0x..."   (a taker's stats)
import { randomUUID } from 'node:crypto';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEFAULT_AUTH_DOMAIN, DEFAULT_RFQ_DOMAIN, MarketMakerClient, type WsMessages } from '@contest-rfq/sdk';

const MIN_ODDS_BPS = 10_001;
const MAX_ODDS_BPS = 10_000_000;

const key = process.env.MM_PRIVATE_KEY;
if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) {
  process.stderr.write("set MM_PRIVATE_KEY to the market maker's 0x-prefixed private key (32 bytes hex)\n");
  process.exit(2);
}
const spreadBps = intEnv('MM_SPREAD_BPS', 500, 0, 9_999);
const maxFillMicros = intEnv('MM_MAX_FILL_MICROS', 100_000_000, 1, Number.MAX_SAFE_INTEGER);
const assets = process.env.MM_ASSETS ? process.env.MM_ASSETS.split(',').map((s) => s.trim().toUpperCase()) : undefined;
const durations = process.env.MM_DURATIONS ? process.env.MM_DURATIONS.split(',').map((s) => Number(s.trim())) : undefined;

const log = (msg: string, fields?: Record<string, unknown>) =>
  process.stdout.write(`${new Date().toISOString()} ${msg}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`);

const client = new MarketMakerClient({
  url: process.env.WS_URL ?? 'ws://localhost:3000/v1/ws',
  account: privateKeyToAccount(key as Hex),
  authDomain: process.env.MM_AUTH_DOMAIN ?? DEFAULT_AUTH_DOMAIN,
  rfqDomain: {
    name: process.env.RFQ_EIP712_NAME ?? DEFAULT_RFQ_DOMAIN.name,
    version: '1',
    chainId: process.env.RFQ_SIGNING_CHAIN_ID ? Number(process.env.RFQ_SIGNING_CHAIN_ID) : DEFAULT_RFQ_DOMAIN.chainId,
    // The deployment's RFQ_EIP712_SALT (the `salt` of GET /v1/rfq/typed-data); the default is the development one.
    salt: (process.env.RFQ_EIP712_SALT as Hex | undefined) ?? DEFAULT_RFQ_DOMAIN.salt,
  },
  log,
});

/** Fair decimal odds of an n-leg parlay of coin flips, less the spread, in basis points. */
function quoteOddsBps(legs: number, spread: number): number {
  const fair = 2 ** legs * 10_000;
  return Math.min(MAX_ODDS_BPS, Math.max(MIN_ODDS_BPS, Math.floor((fair * (10_000 - spread)) / 10_000)));
}

async function onRfq(rfq: WsMessages.RfqMessage) {
  const odds = quoteOddsBps(rfq.legs.length, spreadBps);
  const fill = Math.min(Number(rfq.stake_micros), maxFillMicros);
  const legs = rfq.legs.map((l) => `${l.asset}/${l.duration_secs}s ${l.direction}`).join(' & ');
  log('rfq', { rfq_id: rfq.rfq_id, legs, stake_micros: rfq.stake_micros, fill_mode: rfq.fill_mode, odds_bps: odds });
  try {
    const ack = await client.quote({
      rfq_id: rfq.rfq_id,
      odds_bps: odds,
      max_fill_micros: fill,
      valid_until_ms: rfq.expires_at_ms,
      client_quote_id: randomUUID(),
    });
    log(ack.accepted ? 'quote recorded' : 'quote refused', { rfq_id: ack.rfq_id, quote_id: ack.quote_id, error: ack.error });
  } catch (err) {
    log('quote failed', { rfq_id: rfq.rfq_id, error: (err as Error).message });
  }
}

client.on('session', (s) => {
  process.stdout.write(`session token (bearer for /v1/mm/*, until ${new Date(s.expiresAt * 1000).toISOString()}): ${s.token}\n`);
});
client.on('subscribed', (s) => log('subscribed', { assets: s.assets, durations: s.durations }));
client.on('rfq', (rfq) => void onRfq(rfq));
client.on('quote_result', (r) =>
  log(`quote ${r.status}`, {
    rfq_id: r.rfq_id,
    quote_id: r.quote_id,
    reason: r.reason,
    fill_stake_micros: r.fill_stake_micros,
    liability_micros: r.liability_micros,
  }),
);
client.on('rfq_closed', (c) => log('rfq closed', { rfq_id: c.rfq_id, status: c.status }));
client.on('position_settled', (p) =>
  log('position settled', { position_id: p.position_id, outcome: p.outcome, maker_pnl_micros: p.maker_pnl_micros }),
);
client.on('gave_up', (error) => {
  process.stderr.write(`market-maker client stopped: ${error.message}\n`);
  process.exit(3);
});
// Sent after each authentication (the client re-sends it after every reconnect).
void client
  .subscribe({ ...(assets ? { assets } : {}), ...(durations ? { durations } : {}) })
  .catch((err: Error) => log('subscription not confirmed yet (it is sent after each authentication)', { error: err.message }));
client.start();
const stop = () => void client.stop().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

function intEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    process.stderr.write(`${name} must be an integer from ${min} to ${max}\n`);
    process.exit(2);
  }
  return n;
}
