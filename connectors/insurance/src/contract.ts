/**
 * The insurance API contract as far as this connector relies on it, in one place.
 *
 * Known (from the product spec): the paths and methods, the 2 to 20 day confinement period,
 * the three tiers, the rate limits and the messages of the provider's failed-call log.
 * Assumed (this project's contract until the provider publishes one): the field names of the
 * hospital cash quote, the money shape, the error body, the request id header and the paging
 * scheme of the lists. When the provider publishes its payloads, this file and `entities.ts`
 * are what change.
 */

export const TIERS = ['basic', 'classic', 'plus'] as const;
export type Tier = (typeof TIERS)[number];

export const CAUSES = ['illness', 'accidental_injury'] as const;
export type Cause = (typeof CAUSES)[number];

/** Known: hospital cash covers a consecutive confinement of 2 to 20 days. */
export const CONFINEMENT_DAYS = { min: 2, max: 20 } as const;

/** Known from the failed-call log: motor quotes need `vehicle.value` and a `driver_age` from 18 to 75. */
export const MOTOR_QUOTE = {
  requiredField: 'vehicle.value',
  driverAge: { field: 'driver_age', min: 18, max: 75 },
} as const;

/** Known paths. The quote path takes the tier as `{tier}`. */
export const PATHS = {
  hospitalCashQuote: '/v1/hospital-cash/{tier}/quotes',
  motorQuotes: '/v2/motor/quotes',
  motorPolicies: '/v2/motor/policies',
  travelPolicies: '/v1/travel/policies',
  homeownerQuotes: '/v1/homeowner/quotes',
  hospitalCashPolicies: '/v1/hospital-cash/policies',
} as const;

/** Rate budgets (known): 60 a minute for the three hospital cash quote operations together, 120 for the rest. */
export const BUDGETS = {
  quotes: 'hospital_cash_quotes',
  other: 'default',
} as const;
export const QUOTE_LIMIT_PER_MINUTE = 60;
export const OTHER_LIMIT_PER_MINUTE = 120;

/** Assumed: money is a decimal string with two places and an ISO 4217 currency, never a float. */
export const MONEY_AMOUNT = /^\d+\.\d{2}$/;
export const CURRENCY = /^[A-Z]{3}$/;

/** Known: the provider's request ids look like `req_<hex>`. */
export const REQUEST_ID = /^req_[0-9a-f]+$/i;

/**
 * Assumed paging of the lists: `GET <path>?limit=&cursor=` answers `{data: [...], next_cursor}`;
 * `next_cursor` is passed back as `cursor`, and null marks the last page.
 */
export const PAGING = {
  limitParam: 'limit',
  cursorParam: 'cursor',
  dataField: 'data',
  nextCursorField: 'next_cursor',
  maxLimit: 100,
  defaultLimit: 100,
} as const;

/** Decimal places of the comparison's benefit per unit of premium. */
export const RATIO_PLACES = 4;
