// Mints a development Privy identity token for a wallet, signed with the development key in
// DATA_DIR/dev-privy (created on first use; the service verifies against the same key when
// PRIVY_APP_ID/PRIVY_VERIFICATION_KEY are unset). Refuses to run when NODE_ENV=production.
//
//   npm run -s dev:token -- --wallet 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed [--sub did:privy:...] [--twitter name] [--ttl 3600]
//
// The token alone goes to stdout, so TOKEN=$(npm run -s dev:token -- --wallet 0x...) works.
import { parseArgs } from 'node:util';
import { getAddress, isAddress } from 'viem';
import { ConfigError, isProductionEnv, loadConfig } from '../src/config/load.js';
import { DEV_PRIVY_APP_ID, devLinkedAccounts, devSubForWallet, signIdentityToken } from '../src/domain/identity/dev-identity.js';
import { ensureDevKeyPair } from '../src/domain/identity/dev-keys.js';
import { PRIVY_DID_PREFIX } from '../src/domain/identity/privy-token.js';

const USAGE = 'usage: npm run -s dev:token -- --wallet 0x<40 hex> [--sub did:privy:<id>] [--twitter <username>] [--ttl <seconds>]';

function fail(message: string, code = 64): never {
  process.stderr.write(`dev-token: ${message}\n`);
  process.exit(code);
}

if (isProductionEnv()) fail('refusing to run with NODE_ENV=production: development identity tokens are never accepted there', 1);

let args;
try {
  args = parseArgs({
    options: {
      wallet: { type: 'string' },
      sub: { type: 'string' },
      twitter: { type: 'string' },
      ttl: { type: 'string', default: '3600' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values;
} catch (err) {
  fail(`${(err as Error).message}\n${USAGE}`);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (!args.wallet || !isAddress(args.wallet, { strict: true }))
  fail(`--wallet must be an Ethereum address (EIP-55 checksum or lowercase)\n${USAGE}`);
const wallet = getAddress(args.wallet);
const sub = args.sub ?? devSubForWallet(wallet);
if (!sub.startsWith(PRIVY_DID_PREFIX) || sub.length === PRIVY_DID_PREFIX.length) fail(`--sub must start with ${PRIVY_DID_PREFIX}`);
if (!/^\d+$/.test(args.ttl) || Number(args.ttl) < 1 || Number(args.ttl) > 30 * 86400)
  fail('--ttl must be whole seconds between 1 and 2592000');
if (args.twitter !== undefined && !/^[A-Za-z0-9_]{1,15}$/.test(args.twitter))
  fail('--twitter must be an X username (1-15 of A-Z, a-z, 0-9, _)');

let config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) fail(err.message, 78);
  throw err;
}
if (config.privy.appId) {
  fail(
    `PRIVY_APP_ID is set (${config.privy.appId}): the service verifies tokens against that Privy app, not the development key. ` +
      'Unset PRIVY_APP_ID and PRIVY_VERIFICATION_KEY to use development tokens.',
    1,
  );
}

const keys = await ensureDevKeyPair(config.dataDir);
const twitter = args.twitter ? { username: args.twitter } : undefined;
const token = await signIdentityToken(keys.privateKey, {
  appId: DEV_PRIVY_APP_ID,
  sub,
  linkedAccounts: devLinkedAccounts(wallet, twitter),
  ttlSeconds: Number(args.ttl),
});
process.stderr.write(
  `dev-token: ${keys.created ? 'created' : 'using'} the development key in ${keys.dir}; sub ${sub}, wallet ${wallet}, valid ${args.ttl} s.\n` +
    'dev-token: exchange it with POST /v1/auth/session {"privy_token": "<token>"} on a service started with the same DATA_DIR.\n',
);
process.stdout.write(`${token}\n`);
