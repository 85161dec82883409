import { readFileSync } from 'node:fs';
import { entityId } from '@plugboard/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  credentialSchema,
  annotationsOf,
  approvalOf,
  catalogueEntry,
  effectOf,
  needsApproval,
  retryPolicy,
} from '@plugboard/sdk/host';
import insurance, { createInsuranceConnector, divide, toCents } from '../src/index.js';

/** What the host supplies for a bearer token or an API key: a string, or one with its expiry. */
const keySchema = credentialSchema({ type: 'bearer', id: 'bearer' });

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
  plugboard: unknown;
};

/** The schema a named type's JSON Schema points at (`$ref` into `$defs`). */
function root(schema: any): any {
  const ref = typeof schema.$ref === 'string' ? schema.$ref.replace('#/$defs/', '') : undefined;
  return ref ? schema.$defs[ref] : schema;
}

const QUOTES = [
  'hospital_cash_basic_quotes.create',
  'hospital_cash_classic_quotes.create',
  'hospital_cash_plus_quotes.create',
];
const POLICIES = ['motor_policies.create', 'travel_policies.create', 'hospital_cash_policies.create'];
const LISTS = [
  'motor_quotes.list',
  'motor_policies.list',
  'travel_policies.list',
  'homeowner_quotes.list',
  'hospital_cash_policies.list',
];
const OTHER_QUOTES = ['motor_quotes.create', 'homeowner_quotes.create'];

describe('the definition', () => {
  it('has exactly the actions of the issue', () => {
    expect(insurance.actions.map((action) => action.key).sort()).toEqual(
      [...QUOTES, 'hospital_cash_quotes.compare', ...POLICIES, ...LISTS, ...OTHER_QUOTES].sort(),
    );
    expect(insurance).toMatchObject({ key: 'insurance', category: 'insurance', version: pkg.version });
    expect(insurance.baseUrl).toBeUndefined();
    expect(pkg.plugboard).toEqual({ connector: './dist/index.js', sdk: '^0.1.0' });
  });

  it.each([...QUOTES, 'hospital_cash_quotes.compare'])(
    '%s: a read-only destination (one result, nothing changed at the provider), retried, unapproved, on the quote budget',
    (key) => {
      const action = insurance.action(key)!;
      expect(action).toMatchObject({ direction: 'destination', budget: 'hospital_cash_quotes' });
      expect(effectOf(action)).toEqual({ writes: false, idempotent: true, destructive: false });
      expect(annotationsOf(action)).toMatchObject({ readOnlyHint: true, openWorldHint: true });
      expect(action.billable ?? false).toBe(false);
      expect(retryPolicy(action)).toBe('safe');
      expect(needsApproval(action, 'production')).toBe(false);
    },
  );

  it.each(POLICIES)('%s: a billable write, so never retried and approved before production', (key) => {
    const action = insurance.action(key)!;
    expect(action).toMatchObject({ direction: 'destination', billable: true, budget: 'default' });
    expect(effectOf(action)).toEqual({ writes: true, idempotent: false, destructive: false });
    expect(retryPolicy(action)).toBe('never');
    expect(approvalOf(action)).toBe('production');
    expect(needsApproval(action, 'production')).toBe(true);
    expect(needsApproval(action, 'sandbox')).toBe(false);
  });

  it.each(OTHER_QUOTES)('%s: stores a quote (a write) that is safe to repeat, on the other budget', (key) => {
    const action = insurance.action(key)!;
    expect(action).toMatchObject({ direction: 'destination', retry: 'safe', budget: 'default' });
    expect(effectOf(action)).toEqual({ writes: true, idempotent: false, destructive: false });
    expect(action.billable ?? false).toBe(false);
    expect(approvalOf(action)).toBe('none');
  });

  it.each(LISTS)('%s: a source on the other budget', (key) => {
    const action = insurance.action(key)!;
    expect(action).toMatchObject({ direction: 'source', budget: 'default' });
    expect(retryPolicy(action)).toBe('safe');
  });

  it('declares 60 quotes a minute shared by the quote actions and 120 for the rest', () => {
    expect(insurance.rateLimits).toEqual({
      hospital_cash_quotes: { limit: 60, per: 'minute' },
      default: { limit: 120, per: 'minute' },
    });
    const small = createInsuranceConnector({ rateLimits: { hospital_cash_quotes: { limit: 6, per: 'second' } } });
    expect(small.rateLimits.hospital_cash_quotes).toEqual({ limit: 6, per: 'second' });
    expect(small.actions).toEqual(insurance.actions);
  });

  it('names every data type, and turns each into JSON Schema', () => {
    const ids = new Set(insurance.actions.map((action) => entityId(action.entity)));
    expect([...ids].sort()).toEqual(
      [
        'HomeownerQuote',
        'HospitalCashComparison',
        'HospitalCashPolicy',
        'HospitalCashQuote',
        'MotorPolicy',
        'MotorQuote',
        'TravelPolicy',
      ].sort(),
    );
    for (const action of insurance.actions) {
      expect(() => z.toJSONSchema(action.entity)).not.toThrow();
      expect(() => z.toJSONSchema(action.input, { io: 'input', unrepresentable: 'any' })).not.toThrow();
    }
    const quote = root(z.toJSONSchema(insurance.action('hospital_cash_basic_quotes.create')!.input, { io: 'input' }));
    expect(quote.properties.confinement_days).toMatchObject({ type: 'integer', minimum: 2, maximum: 20 });
    expect(quote.required).toEqual(['applicant', 'cause', 'confinement_days']);
    const money = root(z.toJSONSchema(insurance.action('hospital_cash_basic_quotes.create')!.entity)).properties.premium
      .properties.amount;
    expect(money).toMatchObject({ type: 'string', pattern: '^\\d+\\.\\d{2}$' });
  });

  it('publishes its limitations in the catalogue entry', () => {
    const entry = catalogueEntry(insurance);
    expect(insurance.limitations.length).toBeGreaterThan(0);
    expect(entry.limitations).toEqual(insurance.limitations);
    expect(entry.authentication).toEqual({
      schemes: [
        { id: 'bearer', type: 'bearer', header: 'Authorization', default: true, supplies: keySchema },
        { id: 'x-api-key', type: 'api_key_header', header: 'X-Api-Key', default: false, supplies: keySchema },
      ],
      baseUrl: null,
      baseUrlOverridable: true,
    });
    expect(
      entry.operations.filter((operation) => operation.approvalRequired).map((operation) => operation.key),
    ).toEqual(POLICIES.sort());
  });
});

describe('money without floats', () => {
  it.each([
    ['0.00', 0n],
    ['96.40', 9640n],
    ['5250.00', 525000n],
    ['90071992547409.93', 9007199254740993n],
  ])('%s is %s cents', (amount, cents) => expect(toCents(amount)).toBe(cents));

  it.each(['96.4', '1e3', '-1.00', ' 1.00', '1.000', 'NaN'])('refuses %j', (amount) =>
    expect(() => toCents(amount)).toThrow(RangeError),
  );

  it.each([
    [525000n, 9640n, 4, '54.4606'],
    [1n, 3n, 4, '0.3333'],
    [2n, 3n, 4, '0.6667'],
    [1n, 8n, 2, '0.13'],
    [5n, 2n, 0, '3'],
    [10n ** 30n, 7n, 4, '142857142857142857142857142857.1429'],
  ])('%s / %s to %i places is %s (half up)', (numerator, denominator, places, expected) => {
    expect(divide(numerator, denominator, places)).toBe(expected);
  });

  it('refuses to divide by zero', () => expect(() => divide(1n, 0n, 4)).toThrow(RangeError));
});
