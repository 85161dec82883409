import { MONEY_AMOUNT } from './contract.js';

/**
 * Money arithmetic without floats: amounts are decimal strings with two places, turned into
 * integer cents (BigInt) to compare and divide, and back into decimal strings.
 */

/** `"125.40"` as 12540n. Throws on anything but a non-negative decimal with two places. */
export function toCents(amount: string): bigint {
  if (!MONEY_AMOUNT.test(amount))
    throw new RangeError(`not a money amount with two decimal places: ${JSON.stringify(amount)}`);
  const [whole, fraction] = amount.split('.') as [string, string];
  return BigInt(whole) * 100n + BigInt(fraction);
}

/** `numerator / denominator` as a decimal string with `places` places, rounded half up. Both non-negative. */
export function divide(numerator: bigint, denominator: bigint, places: number): string {
  if (denominator <= 0n) throw new RangeError('cannot divide by zero or a negative amount');
  if (numerator < 0n) throw new RangeError('the numerator must not be negative');
  const scale = 10n ** BigInt(places);
  const scaled = (2n * numerator * scale + denominator) / (2n * denominator);
  const whole = scaled / scale;
  if (places === 0) return whole.toString();
  const fraction = (scaled % scale).toString().padStart(places, '0');
  return `${whole}.${fraction}`;
}
