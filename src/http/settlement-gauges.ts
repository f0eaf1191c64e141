// Prometheus gauges of onchain settlement and of the chain (docs/settlement.md, "Reconciliation and chain status";
// alert rules in docs/alerts.yml), refreshed every GAUGE_EVERY_MS in the API process from what the workers'
// reconcile-chain job stored (chain_observations, src/domain/settlement/onchain/observe-chain.ts) and from the
// database: this process never reads the chain for them, whatever the number of API processes and scrapes. A
// warning log while the gas is below SETTLEMENT_GAS_FLOOR_WEI, an error while there is a deficit or a nonce gap.
import { Gauge, type Registry } from 'prom-client';
import type { Em } from '../db/orm.js';
import type { SettlementAdapter } from '../domain/settlement/adapter.js';
import { chainBacklog, storedChainObservation } from '../domain/settlement/onchain/observe-chain.js';
import type { Logger } from '../logger.js';

export const GAUGE_EVERY_MS = 30_000;
/** At most one warning of each kind per this long. */
const WARN_EVERY_MS = 10 * 60_000;

function gaugesOf(registry: Registry) {
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers: [registry] });
  return {
    surplus: gauge(
      'settlement_onchain_surplus_micros',
      'USDC the chain holds for users minus what users can withdraw, micros (negative: a deficit)',
    ),
    held: gauge('settlement_onchain_held_micros', 'USDC held by the settlement wallet, the deposit addresses and the cold wallet, micros'),
    owed: gauge('settlement_onchain_liabilities_micros', 'USDC users can withdraw (available + reserved + contest pots), micros'),
    gas: gauge('settlement_wallet_gas_wei', 'Native gas balance of the settlement wallet, wei'),
    floor: gauge('settlement_wallet_gas_floor_wei', 'SETTLEMENT_GAS_FLOOR_WEI'),
    gap: gauge(
      'settlement_nonce_gap',
      'Nonces of the settlement wallet with no stored transaction below a stored open one (nothing after them can be mined)',
    ),
    head: gauge('crfq_chain_head_block', "The chain's head block as the workers last read it"),
    lag: gauge('crfq_chain_listener_lag_blocks', 'Confirmed blocks the custodial deposit listener has not read yet'),
    usdc: gauge('settlement_hot_wallet_micros', 'USDC in the settlement wallet (the hot float withdrawals are paid from), micros'),
    cold: gauge('settlement_cold_wallet_micros', 'USDC in COLD_WALLET_ADDRESS (counted when HOT_WALLET_MAX_MICROS is set), micros'),
    uncredited: gauge(
      'crfq_chain_uncredited_micros',
      'USDC in deposit addresses beyond their credits: deposits no user was credited for, micros',
    ),
    parked: gauge('crfq_chain_parked_sweeps', 'Deposit addresses whose sweeps are parked'),
    waiting: gauge('crfq_chain_withdrawals_waiting', 'Pending withdrawals by pending_reason (none: on their way)', ['reason']),
    age: gauge('crfq_chain_observation_age_seconds', "Seconds since the workers' reconcile-chain job last read the chain successfully"),
    failing: gauge('crfq_chain_observation_failing', "1 while the reconcile-chain job's last run could not read the chain"),
  };
}

export function startSettlementGauges(deps: {
  registry: Registry;
  settlement: SettlementAdapter;
  forkDb: () => Em;
  log: Logger;
  everyMs?: number;
}) {
  const { settlement, registry, log } = deps;
  if (!settlement.reconcile) return { refresh: async () => undefined, stop: () => undefined };
  const g = gaugesOf(registry);
  g.floor.set(Number(settlement.gasFloorWei ?? 0n));
  const warned = { gas: 0, deficit: 0 };
  const refresh = async () => {
    try {
      const em = deps.forkDb();
      const backlog = await chainBacklog(em);
      g.parked.set(backlog.parkedSweeps);
      g.waiting.reset();
      for (const w of backlog.withdrawalsWaiting) g.waiting.set({ reason: w.reason ?? 'none' }, w.count);
      const stored = await storedChainObservation(em);
      if (!stored) return;
      const { observation: o } = stored;
      const r = o.reconciliation;
      g.surplus.set(Number(r.surplus_micros));
      g.held.set(Number(r.held_micros));
      g.owed.set(Number(r.owed_micros ?? r.liabilities_micros));
      g.gas.set(Number(r.gas_wei));
      g.usdc.set(Number(r.settlement_wallet_micros));
      g.cold.set(Number(r.cold_wallet_micros ?? 0));
      g.uncredited.set(Number(r.uncredited_micros ?? 0));
      g.gap.set(o.nonce_gap);
      g.head.set(Number(o.head));
      g.lag.set(o.listener_lag_blocks ?? 0);
      g.age.set(Math.max(0, (Date.now() - o.observed_at_ms) / 1000));
      g.failing.set(o.error ? 1 : 0);
      if (o.nonce_gap > 0)
        log.error(
          { missing_nonces: o.nonce_gap },
          'the settlement wallet has a nonce gap: run npm run chain:fill-nonce-gap (docs/operations.md, "A nonce gap")',
        );
      const now = Date.now();
      if (settlement.gasFloorWei !== undefined && BigInt(r.gas_wei) < settlement.gasFloorWei && now - warned.gas > WARN_EVERY_MS) {
        warned.gas = now;
        log.warn(
          { gas_wei: r.gas_wei, floor_wei: settlement.gasFloorWei.toString(), settlement_address: r.settlement_address },
          'the settlement wallet holds less gas than SETTLEMENT_GAS_FLOOR_WEI: top it up',
        );
      }
      if (r.deficit && now - warned.deficit > WARN_EVERY_MS) {
        warned.deficit = now;
        log.error({ onchain: r }, 'onchain reconciliation: the chain holds less USDC than users can withdraw');
      }
    } catch (err) {
      log.warn(
        { reason: String((err as Error).message).split('\n')[0] },
        'the stored chain figures could not be read; the gauges keep their last values',
      );
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), deps.everyMs ?? GAUGE_EVERY_MS);
  timer.unref();
  return { refresh, stop: () => clearInterval(timer) };
}
