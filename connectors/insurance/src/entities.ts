import { z } from 'zod';
import { CAUSES, CONFINEMENT_DAYS, CURRENCY, MONEY_AMOUNT, MOTOR_QUOTE, RATIO_PLACES, TIERS } from './contract.js';

/**
 * The connector's data types: zod schemas named with `.meta({ id })`, which the catalogue turns
 * into JSON Schema and TypeScript. The hospital cash quote follows the assumed contract; the
 * other operations' payloads are unknown, so their types are open objects passed through as is.
 */

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Today's date in UTC, the day the provider is assumed to compare dates against. */
const todayUtc = () => new Date().toISOString().slice(0, 10);

/** Money: a decimal string with two places and an ISO 4217 currency, never a float (assumed). */
const money = () =>
  z.object({
    amount: z.string().regex(MONEY_AMOUNT, { error: 'must be a decimal string with two places, e.g. "125.00"' }),
    currency: z.string().regex(CURRENCY, { error: 'must be an ISO 4217 code, e.g. "ZAR"' }),
  });

const confinementDays = () => {
  const error = (issue: { input: unknown }) =>
    `must be a whole number of days from ${CONFINEMENT_DAYS.min} to ${CONFINEMENT_DAYS.max}, not ${JSON.stringify(issue.input)}`;
  return z
    .number({ error })
    .int({ error })
    .min(CONFINEMENT_DAYS.min, { error })
    .max(CONFINEMENT_DAYS.max, { error })
    .describe(`Consecutive days of hospital confinement covered, ${CONFINEMENT_DAYS.min} to ${CONFINEMENT_DAYS.max}.`);
};

// ---- Hospital cash quotes (assumed request and answer shapes) ----

export const HospitalCashQuoteRequest = z
  .strictObject({
    applicant: z.strictObject({
      date_of_birth: z.iso
        .date({ error: 'must be a date in YYYY-MM-DD form' })
        .refine((value) => !ISO_DATE.test(value) || value <= todayUtc(), { error: 'must not be in the future' }),
    }),
    cause: z.enum(CAUSES, { error: `must be one of ${CAUSES.join(', ')}` }),
    confinement_days: confinementDays(),
    cover_start: z.iso
      .date({ error: 'must be a date in YYYY-MM-DD form' })
      .refine((value) => !ISO_DATE.test(value) || value >= todayUtc(), {
        error: (issue) => `must not be in the past (today is ${todayUtc()} UTC), not ${JSON.stringify(issue.input)}`,
      })
      .optional()
      .describe('First day of cover; today or later (UTC). The provider picks a start when left out.'),
  })
  .meta({
    id: 'HospitalCashQuoteRequest',
    description:
      'A hospital cash quote request (assumed field names): the applicant, the cause and the confinement period.',
  });

export const HospitalCashQuote = z
  .object({
    quote_id: z.string().min(1),
    product: z.literal('hospital_cash'),
    tier: z.enum(TIERS),
    cause: z.enum(CAUSES),
    confinement_days: z.number().int(),
    daily_benefit: money(),
    maximum_benefit: money().describe('daily_benefit x confinement_days'),
    premium: money().extend({ frequency: z.string().min(1) }),
    valid_until: z.iso.datetime({ offset: true }),
    created_at: z.iso.datetime({ offset: true }),
  })
  .meta({
    id: 'HospitalCashQuote',
    description: 'A priced hospital cash quote (assumed shape). A quote is a calculation: asking again is safe.',
  });

const ComparedQuote = HospitalCashQuote.extend({
  benefit_per_premium: z
    .string()
    .regex(new RegExp(`^\\d+\\.\\d{${RATIO_PLACES}}$`))
    .describe(
      `maximum_benefit.amount divided by premium.amount: units of benefit per unit of premium, as a decimal string with ${RATIO_PLACES} places, rounded half up`,
    ),
});

export const HospitalCashComparison = z
  .object({
    cause: z.enum(CAUSES),
    confinement_days: z.number().int(),
    cover_start: z.iso.date().optional(),
    currency: z.string().regex(CURRENCY),
    cheapest_tier: z.enum(TIERS),
    quotes: z.array(ComparedQuote).length(TIERS.length).describe('One quote per tier, cheapest premium first.'),
  })
  .meta({
    id: 'HospitalCashComparison',
    description: 'The three hospital cash tiers quoted for the same applicant, side by side, cheapest premium first.',
  });

// ---- Pass-through operations (payloads unknown) ----

/** The body of a pass-through POST: any JSON object, sent as is. */
export const PassThroughBody = z.looseObject({}).meta({
  id: 'InsurancePassThroughBody',
  description: 'A JSON object sent to the provider as is; its fields are not known and not checked.',
});

const present = (value: unknown) => value !== undefined && value !== null && value !== '';
const { driverAge } = MOTOR_QUOTE;
const ageError = `must be a number from ${driverAge.min} to ${driverAge.max}`;

/** A motor quote body, passed through, with the two checks the provider's failed-call log reveals. */
export const MotorQuoteRequest = z
  .looseObject({
    vehicle: z.looseObject(
      { value: z.unknown().refine(present, { error: 'is required (the insured value of the vehicle)' }) },
      { error: `an object with a value is required: ${MOTOR_QUOTE.requiredField} is missing` },
    ),
    driver_age: z
      .number({ error: ageError })
      .min(driverAge.min, { error: ageError })
      .max(driverAge.max, { error: ageError })
      .optional(),
  })
  .meta({
    id: 'MotorQuoteRequest',
    description: `A motor quote body, sent as is, except that ${MOTOR_QUOTE.requiredField} is required and ${driverAge.field}, when given, lies from ${driverAge.min} to ${driverAge.max}.`,
    examples: [{ vehicle: { value: 250000 }, driver_age: 34 }],
  });

/** A record of an operation whose payload is unknown: an open object, kept as the provider sent it. */
const passThroughRecord = (id: string, what: string) =>
  z
    .looseObject({
      id: z.string().optional().describe('The provider-assigned id, when the answer carries one (assumed name).'),
      created_at: z.string().optional(),
    })
    .meta({
      id,
      description: `${what}, as the provider returns it; the payload is not known, so it is passed through unchecked.`,
    });

export const MotorQuote = passThroughRecord('MotorQuote', 'A motor quote');
export const MotorPolicy = passThroughRecord('MotorPolicy', 'A motor policy');
export const TravelPolicy = passThroughRecord('TravelPolicy', 'A travel policy');
export const HomeownerQuote = passThroughRecord('HomeownerQuote', 'A homeowner quote');
export const HospitalCashPolicy = passThroughRecord('HospitalCashPolicy', 'A hospital cash policy');

export type HospitalCashQuoteRequest = z.output<typeof HospitalCashQuoteRequest>;
export type HospitalCashQuote = z.output<typeof HospitalCashQuote>;
export type HospitalCashComparison = z.output<typeof HospitalCashComparison>;
