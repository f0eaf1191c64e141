// Exchange prices arrive as decimal text ("97123.45000000", or a JSON number literal such as 0.3512 or
// 1.5e-7); they become integer micros here without ever passing through a float. Digits past the sixth
// decimal are cut (toward zero), so a price of 1.2345678 is 1234567 micros.

const DECIMAL = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d{1,3}))?$/;

/** Micros of a non-negative decimal string, or null when the text is not one (or is absurdly large). */
export function decimalToMicros(text: string): bigint | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const intPart = m[1]!;
  const frac = m[2] ?? '';
  const exp = m[3] ? Number(m[3]) : 0;
  // value = digits * 10^(exp - frac.length); micros = value * 10^6
  const digits = BigInt(intPart + frac);
  const shift = exp - frac.length + 6;
  const micros = shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift);
  return micros > 2n ** 63n - 1n ? null : micros;
}

/** Integer `answer` with `decimals` decimals (a Chainlink answer) into micros, cut toward zero. */
export function scaledToMicros(answer: bigint, decimals: number): bigint {
  return decimals >= 6 ? answer / 10n ** BigInt(decimals - 6) : answer * 10n ** BigInt(6 - decimals);
}
