// The fee policy of every chain transaction (docs/settlement.md, "Fees"): EIP-1559 fees from the node's
// estimate, never above CHAIN_MAX_FEE_PER_GAS_WEI / CHAIN_MAX_PRIORITY_FEE_PER_GAS_WEI; a same-nonce replacement
// raises both fees by 25% (at least the node's 10% minimum) or to the network's price, whichever is higher, and
// is not signed at all when the cap leaves no room for the node's minimum. Pure.

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export type FeeCap = Fees;

/** A replacement pays this much more than the attempt it replaces when the network does not ask for more: +25%. */
export const bump = (fee: bigint) => fee + fee / 4n + 1n;

/** Nodes refuse a same-nonce replacement that does not raise both fees by at least 10% (geth's txpool price bump). */
export const atLeastNodeMinimum = (fee: bigint) => fee + (fee + 9n) / 10n;

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/** The fees clamped to the cap (the priority fee never above the max fee); `capped` when either was lowered. */
export function capFees(wanted: Fees, cap: FeeCap): { fees: Fees; capped: boolean } {
  const maxFeePerGas = min(wanted.maxFeePerGas, cap.maxFeePerGas);
  const maxPriorityFeePerGas = min(min(wanted.maxPriorityFeePerGas, cap.maxPriorityFeePerGas), maxFeePerGas);
  const capped = maxFeePerGas < wanted.maxFeePerGas || maxPriorityFeePerGas < wanted.maxPriorityFeePerGas;
  return { fees: { maxFeePerGas, maxPriorityFeePerGas }, capped };
}

/**
 * The fees of a replacement of `latest`: the higher of the network's estimate and latest + 25%, per fee, within the
 * cap; null when the cap leaves less than the node's 10% minimum over `latest` (the transaction waits at the cap).
 */
export function replacementFees(latest: Fees, estimate: Fees, cap: FeeCap): { fees: Fees; capped: boolean } | null {
  const wanted = {
    maxFeePerGas: max(estimate.maxFeePerGas, bump(latest.maxFeePerGas)),
    maxPriorityFeePerGas: max(estimate.maxPriorityFeePerGas, bump(latest.maxPriorityFeePerGas)),
  };
  const next = capFees(wanted, cap);
  if (next.fees.maxFeePerGas < atLeastNodeMinimum(latest.maxFeePerGas)) return null;
  if (next.fees.maxPriorityFeePerGas < atLeastNodeMinimum(latest.maxPriorityFeePerGas)) return null;
  return next;
}

/** The most a transaction can cost the sender, wei: its gas at the max fee, plus the L1 data fee on an OP-stack chain. */
export const maxCostWei = (gas: bigint, fees: Fees, l1FeeWei: bigint, value = 0n) => gas * fees.maxFeePerGas + l1FeeWei + value;
