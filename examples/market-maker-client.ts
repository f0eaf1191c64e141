// A market maker on the contest-rfq-service WebSocket (spec/asyncapi.yaml), with the SDK package
// (@contest-rfq/sdk, sdk/): it authenticates, answers every ping with a pong, and when the connection closes
// (session expiry after AUTH_EXPIRED, a restart of the service, a network failure) reconnects with
// exponential backoff and a fresh challenge. It gives up (exit code 3) when retrying cannot help: the
// operator removed the market maker (close 4004) or never registered the wallet (`unknown_market_maker`).
//
//   MM_PRIVATE_KEY=0x... WS_URL=ws://localhost:3000/v1/ws npx tsx examples/market-maker-client.ts
//
// Optional: MM_AUTH_DOMAIN (when the deployment configured another 35-byte domain). The session token it
// prints is the bearer token for the market-maker HTTP routes, e.g.
//   curl -H "Authorization: Bearer <token>" localhost:3000/v1/mm/pnl            (your own PnL)
//   curl -H "Authorization: Bearer <token>" "localhost:3000/v1/mm/taker_pnl?wallet=0x..."   (a taker's stats)
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEFAULT_AUTH_DOMAIN, MarketMakerClient } from '@contest-rfq/sdk';

const key = process.env.MM_PRIVATE_KEY;
if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) {
  process.stderr.write("set MM_PRIVATE_KEY to the market maker's 0x-prefixed private key (32 bytes hex)\n");
  process.exit(2);
}
const client = new MarketMakerClient({
  url: process.env.WS_URL ?? 'ws://localhost:3000/v1/ws',
  account: privateKeyToAccount(key as Hex),
  authDomain: process.env.MM_AUTH_DOMAIN ?? DEFAULT_AUTH_DOMAIN,
  log: (msg, fields) => process.stdout.write(`${new Date().toISOString()} ${msg}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`),
});
client.on('session', (s) => {
  process.stdout.write(`session token (bearer for /v1/mm/*, until ${new Date(s.expiresAt * 1000).toISOString()}): ${s.token}\n`);
});
client.on('gave_up', (error) => {
  process.stderr.write(`market-maker client stopped: ${error.message}\n`);
  process.exit(3);
});
client.start();
const stop = () => void client.stop().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
