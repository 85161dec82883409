/** Money as the provider is assumed to send it: a decimal string with an ISO 4217 code, never a float. */
export interface Money {
  amount: string;
  currency: string;
}

/** Formats integer cents as a decimal string with two places ("5250.00"). */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) {
    throw new RangeError(`cents must be a non-negative safe integer, got ${cents}`);
  }
  const whole = Math.trunc(cents / 100);
  const fraction = cents % 100;
  return `${whole}.${String(fraction).padStart(2, '0')}`;
}

export function money(cents: number, currency: string): Money {
  return { amount: formatCents(cents), currency };
}
