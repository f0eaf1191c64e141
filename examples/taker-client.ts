// An RFQ taker with the SDK package (@contest-rfq/sdk, sdk/): it looks up the current market window, signs
// an EIP-712 `RfqOrder` for one leg with the typed data the deployment publishes, submits it in best mode
// (POST /v1/rfq answers after the quote window with the filled or expired RFQ) and prints the result.
//
//   SESSION=<session token> TAKER_PRIVATE_KEY=0x... BASE_URL=http://localhost:3000 npx tsx examples/taker-client.ts
//
// SESSION is a user session of the same wallet as TAKER_PRIVATE_KEY (POST /v1/auth/wallet, or the Privy
// exchange POST /v1/auth/session): the service refuses an order whose taker is not the session's wallet.
// The available balance must cover the stake (POST /v1/users/deposit). Optional: ASSET (BTC),
// DURATION_SECS (300), DIRECTION (up), STAKE_MICROS (1000000), MIN_ODDS_BPS (15000), ORDER_TYPE (FOK).
import { randomUUID } from 'node:crypto';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createClient, createRfq, fetchTypedData, getCurrentMarket, signOrder, type RfqOrderJson } from '@contest-rfq/sdk';

const env = process.env;
const key = env.TAKER_PRIVATE_KEY;
if (!env.SESSION || !key || !/^0x[0-9a-fA-F]{64}$/.test(key)) {
  process.stderr.write("set SESSION to a user session token and TAKER_PRIVATE_KEY to that user's wallet key (0x + 64 hex)\n");
  process.exit(2);
}
const account = privateKeyToAccount(key as Hex);
const client = createClient({ baseUrl: env.BASE_URL ?? 'http://localhost:3000', token: env.SESSION });

function fail(what: string, res: { error?: unknown; response?: Response }): never {
  process.stderr.write(`${what} failed (${res.response?.status ?? 'no response'}): ${JSON.stringify(res.error)}\n`);
  process.exit(1);
}

const current = await getCurrentMarket({ client, query: { asset: env.ASSET ?? 'BTC', duration_secs: Number(env.DURATION_SECS ?? 300) } });
if (!current.data) fail('GET /v1/markets/current', current);
const { market } = current.data;
process.stdout.write(
  `market ${market.market_id}: ${market.asset} ${market.duration_secs}s from ${new Date(market.start_at_ms).toISOString()}\n`,
);

const typedData = await fetchTypedData(client); // the domain's name, chainId and salt are deployment settings
const order: RfqOrderJson = {
  taker: account.address,
  legs: [{ market_id: market.market_id, direction: env.DIRECTION === 'down' ? 'down' : 'up' }],
  stake_micros: Number(env.STAKE_MICROS ?? 1_000_000),
  min_odds_bps: Number(env.MIN_ODDS_BPS ?? 15_000),
  order_type: env.ORDER_TYPE === 'IOC' ? 'IOC' : 'FOK',
  nonce: Date.now(), // unique per taker: a used nonce is 409 NONCE_REUSED
  deadline_ms: Date.now() + 10_000,
};
const signature = await signOrder(account, typedData, order);

// The idempotency key makes the POST safe to retry: resend the same body with the same key after a
// timeout or a 503 and you get the same RFQ, never a second reservation.
const res = await createRfq({ client, body: { order, signature, fill_mode: 'best', idempotency_key: randomUUID() } });
if (!res.data) fail('POST /v1/rfq', res);
const rfq = res.data;
if (rfq.status === 'filled') {
  process.stdout.write(
    `filled ${rfq.filled_stake_micros} of ${rfq.stake_micros} micros at ${rfq.odds_bps! / 10_000}x: pays ${rfq.payout_micros} micros if it wins (position ${rfq.position_id})\n`,
  );
} else if (rfq.status === 'open') {
  // Only when the service was stopping during the quote window: the outcome is in GET /v1/rfq/{rfq_id}.
  process.stdout.write(`still open: read GET /v1/rfq/${rfq.rfq_id}?wait_ms=5000 for the outcome\n`);
} else {
  process.stdout.write(
    `${rfq.status} (${rfq.close_reason}) after ${rfq.quotes_received} quote(s); the stake is back in the available balance\n`,
  );
}
process.stdout.write(`${JSON.stringify(rfq, null, 2)}\n`);
