// The one clamp of the service: a list's page size (`limit`) held within its bounds.

/** `n` held within [lo, hi]. */
export const clamp = (n: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, n));

/** A page size: `n` (or `def` when absent) held within [1, max]. */
export const clampLimit = (n: number | undefined, def: number, max: number): number => clamp(n ?? def, 1, max);
