// Prometheus gauges of onchain settlement (docs/settlement.md), refreshed every GAUGE_EVERY_MS in the API
// process (not on scrape: a slow node must not slow /metrics): the reconciliation's surplus (negative: a
// deficit), what the chain holds and what the books owe, the hot float and the cold wallet, and the settlement wallet's gas, with a warning
// log while it is below SETTLEMENT_GAS_FLOOR_WEI (and while there is a deficit).
import { Gauge, type Registry } from 'prom-client';
import type { Em } from '../db/orm.js';
import type { SettlementAdapter } from '../domain/settlement/adapter.js';
import type { Logger } from '../logger.js';

export const GAUGE_EVERY_MS = 30_000;
/** At most one warning of each kind per this long. */
const WARN_EVERY_MS = 10 * 60_000;

export function startSettlementGauges(deps: { registry: Registry; settlement: SettlementAdapter; forkDb: () => Em; log: Logger; everyMs?: number }) {
  const { settlement, registry, log } = deps;
  if (!settlement.reconcile) return { refresh: async () => undefined, stop: () => undefined };
  const gauge = (name: string, help: string) => new Gauge({ name, help, registers: [registry] });
  const surplus = gauge('settlement_onchain_surplus_micros', 'USDC the chain holds minus what the books owe, micros (negative: a deficit)');
  const held = gauge('settlement_onchain_held_micros', 'USDC held by the settlement wallet and unswept deposit addresses, micros');
  const owed = gauge('settlement_onchain_liabilities_micros', 'USDC the books owe (every deposit not withdrawn), micros');
  const hot = gauge('settlement_hot_wallet_micros', 'USDC in the settlement wallet (the hot float withdrawals are paid from), micros');
  const cold = gauge('settlement_cold_wallet_micros', 'USDC in COLD_WALLET_ADDRESS (counted when HOT_WALLET_MAX_MICROS is set), micros');
  const gas = gauge('settlement_wallet_gas_wei', 'Native gas balance of the settlement wallet, wei');
  const floor = gauge('settlement_wallet_gas_floor_wei', 'SETTLEMENT_GAS_FLOOR_WEI');
  const gap = gauge(
    'settlement_nonce_gap',
    'Nonces of the settlement wallet with no stored transaction below a stored open one (nothing after them can be mined)',
  );
  floor.set(Number(settlement.gasFloorWei ?? 0n));
  const warned = { gas: 0, deficit: 0 };
  const refresh = async () => {
    try {
      const r = await settlement.reconcile!(deps.forkDb());
      surplus.set(Number(r.surplus_micros));
      held.set(Number(r.held_micros));
      owed.set(Number(r.liabilities_micros));
      hot.set(Number(r.settlement_wallet_micros));
      cold.set(Number(r.cold_wallet_micros));
      gas.set(Number(r.gas_wei));
      const missing = (await settlement.nonceGap?.(deps.forkDb())) ?? 0;
      gap.set(missing);
      if (missing > 0)
        log.error(
          { missing_nonces: missing },
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
        log.error({ onchain: r }, 'onchain reconciliation: the chain holds less USDC than the books owe');
      }
    } catch (err) {
      log.warn(
        { reason: String((err as Error).message).split('\n')[0] },
        'onchain reconciliation could not be read; the gauges keep their last values',
      );
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), deps.everyMs ?? GAUGE_EVERY_MS);
  timer.unref();
  return { refresh, stop: () => clearInterval(timer) };
}
