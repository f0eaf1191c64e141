// The writes and checks of the restore drill (scripts/drills/restore.sh), through the service's own domain
// code against DATABASE_URL:
//   setup          migrate, then the demo data (users, deposits, contests, entries, a resolved contest)
//   deposit LABEL  one wallet user (its address derived from LABEL) with a settled 25 USDC deposit
//   verify A,B -C  exit 0 when the users of A and B exist and the user of C does not, else 1
import { createHash } from 'node:crypto';
import { getAddress } from 'viem';
import { createOrm, migrate } from '../../src/db/orm.js';
import { seedDemoData } from '../../src/domain/demo/seed.js';
import { findOrCreateWalletUser } from '../../src/domain/identity/users.js';
import { openDeposit, settleOperation } from '../../src/domain/money/operations.js';
import { createDemoSettlement } from '../../src/domain/settlement/demo.js';
import { db } from '../../src/db/schema.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const [cmd, arg] = process.argv.slice(2);
const walletOf = (label: string) => getAddress(`0x${createHash('sha256').update(`restore drill:${label}`).digest('hex').slice(0, 40)}`);
const settlement = createDemoSettlement({ onchainBalanceMicros: 1_000_000_000_000n });

const orm = await createOrm({ databaseUrl: url });
let code = 0;
try {
  if (cmd === 'setup') {
    await migrate(orm);
    const seeded = await seedDemoData(orm.em.fork(), settlement);
    process.stdout.write(`migrated; demo data: ${seeded.contestIds.length} contests\n`);
  } else if (cmd === 'deposit' && arg) {
    const user = await findOrCreateWalletUser(orm.em.fork(), walletOf(arg));
    const op = await orm.em.fork().transactional((tx) => openDeposit(tx, user.id, 25_000_000n, null));
    const outcome = await settleOperation(orm.em.fork(), settlement, op.id);
    process.stdout.write(`deposit ${arg}: user ${user.id}, operation ${op.id}, ${outcome}\n`);
    if (outcome !== 'settled') code = 1;
  } else if (cmd === 'verify' && arg) {
    for (const item of arg.split(',')) {
      const absent = item.startsWith('-');
      const label = absent ? item.slice(1) : item;
      const row = await db(orm.em.fork()).selectFrom('users').select('id').where('wallet_address', '=', walletOf(label)).executeTakeFirst();
      const ok = absent ? row === undefined : row !== undefined;
      process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${label}: ${row ? 'present' : 'absent'} (expected ${absent ? 'absent' : 'present'})\n`);
      if (!ok) code = 1;
    }
  } else {
    throw new Error('usage: restore-writes.ts setup | deposit LABEL | verify A,B,-C');
  }
} finally {
  await orm.close(true);
}
process.exit(code);
