import { money, type Money } from './money.js';

export const TIERS = ['basic', 'classic', 'plus'] as const;
export type Tier = (typeof TIERS)[number];

export const CAUSES = ['illness', 'accidental_injury'] as const;
export type Cause = (typeof CAUSES)[number];

export const MIN_CONFINEMENT_DAYS = 2;
export const MAX_CONFINEMENT_DAYS = 20;

/** Daily benefit per tier, in cents. */
export const DAILY_BENEFIT_CENTS: Readonly<Record<Tier, number>> = {
  basic: 50_000,
  classic: 75_000,
  plus: 120_000,
};

/** Monthly administration fee per tier, in cents, added to the risk premium. */
const ADMIN_FEE_CENTS: Readonly<Record<Tier, number>> = {
  basic: 990,
  classic: 1_240,
  plus: 1_490,
};

/** Monthly risk rate in basis points of the maximum benefit, by lowest age of the band. */
const AGE_BANDS: ReadonlyArray<{ fromAge: number; rateBp: number }> = [
  { fromAge: 70, rateBp: 540 },
  { fromAge: 60, rateBp: 400 },
  { fromAge: 50, rateBp: 290 },
  { fromAge: 40, rateBp: 210 },
  { fromAge: 30, rateBp: 160 },
  { fromAge: 18, rateBp: 130 },
  { fromAge: 0, rateBp: 110 },
];

/** Share of the illness rate charged per cause, in percent: accident-only cover is cheaper. */
const CAUSE_PERCENT: Readonly<Record<Cause, number>> = {
  illness: 100,
  accidental_injury: 45,
};

export interface PremiumInput {
  tier: Tier;
  /** Age in whole years on the quote date (see ageOn). */
  age: number;
  cause: Cause;
  confinementDays: number;
}

export interface PremiumBreakdown {
  dailyBenefit: Money;
  maximumBenefit: Money;
  /** Monthly premium. */
  premium: Money;
}

/**
 * The simulator's premium: a pure function of tier, age, cause and days, computed in integer
 * cents (all products stay far below 2^53, so Number arithmetic is exact) and rounded half up once.
 */
export function quotePremium(input: PremiumInput, currency = 'ZAR'): PremiumBreakdown {
  const { tier, age, cause, confinementDays } = input;
  if (!Number.isInteger(age) || age < 0) throw new RangeError(`age must be a non-negative integer, got ${age}`);
  if (
    !Number.isInteger(confinementDays) ||
    confinementDays < MIN_CONFINEMENT_DAYS ||
    confinementDays > MAX_CONFINEMENT_DAYS
  ) {
    throw new RangeError(`confinementDays must be an integer from 2 to 20, got ${confinementDays}`);
  }
  const dailyCents = DAILY_BENEFIT_CENTS[tier];
  const maximumCents = dailyCents * confinementDays;
  const rateBp = AGE_BANDS.find((band) => age >= band.fromAge)?.rateBp ?? 0;
  const numerator = maximumCents * rateBp * CAUSE_PERCENT[cause];
  const denominator = 10_000 * 100;
  const riskCents = Math.floor((2 * numerator + denominator) / (2 * denominator));
  return {
    dailyBenefit: money(dailyCents, currency),
    maximumBenefit: money(maximumCents, currency),
    premium: money(riskCents + ADMIN_FEE_CENTS[tier], currency),
  };
}

/** Age in whole years on the UTC date of `at` for a YYYY-MM-DD date of birth. */
export function ageOn(dateOfBirth: string, at: number): number {
  const birth = parseIsoDate(dateOfBirth);
  if (!birth) throw new RangeError(`not a YYYY-MM-DD date: ${dateOfBirth}`);
  const now = new Date(at);
  const years = now.getUTCFullYear() - birth.year;
  const month = now.getUTCMonth() + 1;
  const birthdayReached = month > birth.month || (month === birth.month && now.getUTCDate() >= birth.day);
  return birthdayReached ? years : years - 1;
}

/** Parses a real calendar date in YYYY-MM-DD form; undefined for anything else (2026-02-30 included). */
export function parseIsoDate(text: string): { year: number; month: number; day: number } | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return { year, month, day };
}
