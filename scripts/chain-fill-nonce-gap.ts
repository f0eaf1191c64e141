// `npm run chain:fill-nonce-gap`: the runbook's command for a nonce gap of the settlement wallet (docs/operations.md,
// "A nonce gap"). Run with the service's environment (SETTLEMENT_MODE=onchain and its chain settings, DATABASE_URL)
// while the service runs: it finds the nonces below the lowest stored open one that have no stored transaction, signs
// a zero-value transfer from the wallet to itself at each (stored before broadcast, within the fee cap, through
// src/domain/settlement/onchain/chain-tx/gap.ts), and waits until each is mined with its confirmations; the
// withdrawals queued behind the gap are then mined by the workers. Prints one JSON line per pass; exit 0 when no gap
// is left, 1 when one still is after --timeout-ms (default 300000), 64 on a usage error, 78 on a configuration error.
// With --dry-run it only prints the gap.
import { ConfigError, loadConfig } from '../src/config/load.js';
import { createOrm } from '../src/db/orm.js';
import { createLogger } from '../src/logger.js';
import { createChain } from '../src/adapters/chain/chain.js';
import { fillNonceGapOnce, nonceGap } from '../src/domain/settlement/onchain/chain-tx/gap.js';
import { policyOf } from '../src/domain/settlement/onchain/sender.js';

const args = process.argv.slice(2).filter((a) => a !== '--');
const dryRun = args.includes('--dry-run');
const timeoutArg = args.find((a) => a.startsWith('--timeout-ms='));
const timeoutMs = timeoutArg ? Number(timeoutArg.split('=')[1]) : 300_000;
if (args.some((a) => a !== '--dry-run' && a !== timeoutArg) || !Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
  process.stderr.write('usage: npm run chain:fill-nonce-gap -- [--dry-run] [--timeout-ms=300000]\n');
  process.exit(64);
}

async function main(): Promise<number> {
  const config = loadConfig(process.env);
  if (!config.chain) throw new ConfigError(['SETTLEMENT_MODE: the nonce-gap fill needs SETTLEMENT_MODE=onchain and its chain settings']);
  if (!config.databaseUrl)
    throw new ConfigError([
      "DATABASE_URL: run the fill against the deployment's PostgreSQL (the embedded database has no gap to fill while the service holds it)",
    ]);
  const log = createLogger('info', { tool: 'chain:fill-nonce-gap' });
  const chain = createChain(config.chain);
  const orm = await createOrm({ databaseUrl: config.databaseUrl });
  try {
    const env = { chain, policy: policyOf(chain), log };
    const until = Date.now() + timeoutMs;
    for (;;) {
      const em = orm.em.fork();
      const gap = await nonceGap(em, chain);
      const steps = dryRun ? [] : await fillNonceGapOnce(em, env, log);
      const open = steps.filter((s) => s.step.do !== 'record');
      process.stdout.write(
        `${JSON.stringify({
          gap: gap && { sender: gap.sender, from: gap.from.toString(), below: gap.below.toString() },
          fillers: steps.map((s) => ({
            nonce: s.nonce.toString(),
            step: s.step.do,
            ...(s.step.do === 'wait' ? { reason: s.step.reason } : {}),
          })),
        })}\n`,
      );
      if (dryRun) return gap ? 1 : 0;
      if (!gap && !open.length) return 0;
      if (Date.now() > until) return 1;
      await new Promise((r) => setTimeout(r, config.chain!.pollMs));
    }
  } finally {
    await orm.close(true);
    await chain.close();
  }
}

try {
  process.exitCode = await main();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`chain:fill-nonce-gap: ${err.message}\n`);
  process.exitCode = 78;
}
