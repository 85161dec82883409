import { describe, expect, it } from 'vitest';
import { ageOn, formatCents, quotePremium } from '../src/index.js';
import { NOW } from './harness.js';

describe('quotePremium', () => {
  it('reproduces the contract example: classic, age 38, illness, 7 days', () => {
    expect(quotePremium({ tier: 'classic', age: 38, cause: 'illness', confinementDays: 7 })).toEqual({
      dailyBenefit: { amount: '750.00', currency: 'ZAR' },
      maximumBenefit: { amount: '5250.00', currency: 'ZAR' },
      premium: { amount: '96.40', currency: 'ZAR' },
    });
  });

  it('prices each tier from its daily benefit, the age band and the cause', () => {
    // 1000.00 max x 1.30% x 45% = 5.85, plus the 9.90 basic fee
    expect(
      quotePremium({ tier: 'basic', age: 25, cause: 'accidental_injury', confinementDays: 2 }).premium.amount,
    ).toBe('15.75');
    // 24000.00 max x 4.00% = 960.00, plus the 14.90 plus fee
    const plus = quotePremium({ tier: 'plus', age: 61, cause: 'illness', confinementDays: 20 });
    expect(plus.maximumBenefit.amount).toBe('24000.00');
    expect(plus.premium.amount).toBe('974.90');
  });

  it('rounds the risk premium half up, once, in cents', () => {
    // 1500.00 max x 2.10% x 45% = 14.175 -> 14.18, plus 9.90
    expect(
      quotePremium({ tier: 'basic', age: 45, cause: 'accidental_injury', confinementDays: 3 }).premium.amount,
    ).toBe('24.08');
  });

  it('uses the currency it is given', () => {
    expect(quotePremium({ tier: 'basic', age: 30, cause: 'illness', confinementDays: 2 }, 'USD').premium.currency).toBe(
      'USD',
    );
  });

  it('refuses days outside 2..20 and fractional ages', () => {
    expect(() => quotePremium({ tier: 'basic', age: 30, cause: 'illness', confinementDays: 21 })).toThrow(RangeError);
    expect(() => quotePremium({ tier: 'basic', age: 30.5, cause: 'illness', confinementDays: 5 })).toThrow(RangeError);
  });
});

describe('ageOn', () => {
  it('counts whole years on the UTC date of the clock', () => {
    expect(ageOn('1988-04-12', NOW)).toBe(38);
    expect(ageOn('1996-11-21', NOW)).toBe(30);
    expect(ageOn('1996-11-22', NOW)).toBe(29);
  });
});

describe('formatCents', () => {
  it('writes two decimal places without floating point', () => {
    expect(formatCents(0)).toBe('0.00');
    expect(formatCents(5)).toBe('0.05');
    expect(formatCents(9_007_199_254_740_991)).toBe('90071992547409.91');
  });
});
