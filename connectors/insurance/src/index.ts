import { apiKeyHeader, bearerToken, type Connector, defineConnector, type RateBudget } from '@plugboard/sdk';
import { createRequire } from 'node:module';
import { homeownerQuotesCreate } from './actions/homeowner_quotes.create.js';
import { homeownerQuotesList } from './actions/homeowner_quotes.list.js';
import { hospitalCashBasicQuotesCreate } from './actions/hospital_cash_basic_quotes.create.js';
import { hospitalCashClassicQuotesCreate } from './actions/hospital_cash_classic_quotes.create.js';
import { hospitalCashPlusQuotesCreate } from './actions/hospital_cash_plus_quotes.create.js';
import { hospitalCashPoliciesCreate } from './actions/hospital_cash_policies.create.js';
import { hospitalCashPoliciesList } from './actions/hospital_cash_policies.list.js';
import { hospitalCashQuotesCompare } from './actions/hospital_cash_quotes.compare.js';
import { motorPoliciesCreate } from './actions/motor_policies.create.js';
import { motorPoliciesList } from './actions/motor_policies.list.js';
import { motorQuotesCreate } from './actions/motor_quotes.create.js';
import { motorQuotesList } from './actions/motor_quotes.list.js';
import { travelPoliciesCreate } from './actions/travel_policies.create.js';
import { travelPoliciesList } from './actions/travel_policies.list.js';
import { BUDGETS, OTHER_LIMIT_PER_MINUTE, PAGING, PATHS, QUOTE_LIMIT_PER_MINUTE } from './contract.js';
import { classifyInsuranceFailure } from './errors.js';

/** The package's own version, read from its package.json (one level up from both src/ and dist/). */
const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

export const ACTIONS = [
  hospitalCashBasicQuotesCreate,
  hospitalCashClassicQuotesCreate,
  hospitalCashPlusQuotesCreate,
  hospitalCashQuotesCompare,
  motorQuotesList,
  motorQuotesCreate,
  motorPoliciesList,
  motorPoliciesCreate,
  travelPoliciesList,
  travelPoliciesCreate,
  homeownerQuotesList,
  homeownerQuotesCreate,
  hospitalCashPoliciesList,
  hospitalCashPoliciesCreate,
] as const;

export const LIMITATIONS: readonly string[] = [
  'Payloads are assumed, not published: the hospital cash quote request and answer fields, money as {amount: decimal string, currency}, the error body {error, message, request_id, field} and the X-Request-Id header follow the contract Plugboard assumes. Known are only the paths and methods, the three tiers, the 2 to 20 day confinement period, the rate limits and the messages of the failed-call log.',
  'Bodies passed through unchecked: motor_policies.create, travel_policies.create, homeowner_quotes.create and hospital_cash_policies.create send the input object as is, and motor_quotes.create checks only that vehicle.value is present and that driver_age, when given, lies from 18 to 75. The records of every .list action and of these .create actions are returned as the provider sends them (open objects); only the hospital cash quotes and the comparison are checked field by field.',
  'The paging of the .list actions is assumed: ?limit= (1 to 100) and ?cursor=, answered with {data, next_cursor}. Lists are read whole, not incrementally: no update cursor field is known.',
  'No public base URL: every connection must set its base URL.',
  'Authentication is assumed: the API key is sent as a bearer token by default, or in an X-Api-Key header when the connection sets settings.authScheme to "x-api-key".',
  'Creating a policy binds real cover: motor_policies.create, travel_policies.create and hospital_cash_policies.create are billable, need an approval before production and are never retried automatically; after a failure, look the request id up in the provider console before trying again.',
  `Rate budgets: ${QUOTE_LIMIT_PER_MINUTE} requests a minute shared by the three hospital cash quote actions and hospital_cash_quotes.compare (which spends three per run); ${OTHER_LIMIT_PER_MINUTE} a minute for the other operations.`,
];

export type InsuranceBudget = (typeof BUDGETS)[keyof typeof BUDGETS];

export interface InsuranceConnectorOptions {
  /**
   * Replaces the declared rate budgets, e.g. a shorter window for a test against a simulator
   * configured the same way. The published connector keeps the provider's limits.
   */
  rateLimits?: Partial<Record<InsuranceBudget, RateBudget>>;
}

/** Builds the connector; the default export is this with the provider's own limits. */
export function createInsuranceConnector(options: InsuranceConnectorOptions = {}): Connector {
  return defineConnector({
    key: 'insurance',
    name: 'Insurance quote API',
    version: VERSION,
    vendor: null,
    category: 'insurance',
    status: 'alpha',
    summary:
      'Hospital cash quotes per benefit tier and side by side, plus the motor, travel, homeowner and hospital cash quote and policy operations, passed through.',
    documentationUrl: null,
    auth: [bearerToken(), apiKeyHeader('X-Api-Key')],
    rateLimits: {
      [BUDGETS.quotes]: { limit: QUOTE_LIMIT_PER_MINUTE, per: 'minute' },
      [BUDGETS.other]: { limit: OTHER_LIMIT_PER_MINUTE, per: 'minute' },
      ...options.rateLimits,
    },
    limitations: LIMITATIONS,
    actions: ACTIONS,
    classifyError: classifyInsuranceFailure,
    // The API has no account endpoint: one travel policy, from the cheaper budget, proves the key.
    async check(ctx) {
      await ctx.http.get(PATHS.travelPolicies, { query: { [PAGING.limitParam]: 1 }, budget: BUDGETS.other });
    },
  });
}

export const insurance = createInsuranceConnector();
export default insurance;

export {
  homeownerQuotesCreate,
  homeownerQuotesList,
  hospitalCashBasicQuotesCreate,
  hospitalCashClassicQuotesCreate,
  hospitalCashPlusQuotesCreate,
  hospitalCashPoliciesCreate,
  hospitalCashPoliciesList,
  hospitalCashQuotesCompare,
  motorPoliciesCreate,
  motorPoliciesList,
  motorQuotesCreate,
  motorQuotesList,
  travelPoliciesCreate,
  travelPoliciesList,
};
export * from './entities.js';
export * from './errors.js';
export { compareQuotes, IncomparableQuotesError } from './compare.js';
export { toCents, divide } from './money.js';
export {
  BUDGETS,
  CAUSES,
  CONFINEMENT_DAYS,
  MOTOR_QUOTE,
  PAGING,
  PATHS,
  TIERS,
  type Cause,
  type Tier,
} from './contract.js';
