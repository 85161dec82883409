export {
  DEFAULT_API_KEY,
  DEFAULT_SEED,
  startInsuranceSimulator,
  type InsuranceSimulator,
  type InsuranceSimulatorOptions,
  type SimulatorCounters,
} from './simulator.js';
export {
  CAUSES,
  DAILY_BENEFIT_CENTS,
  MAX_CONFINEMENT_DAYS,
  MIN_CONFINEMENT_DAYS,
  TIERS,
  ageOn,
  quotePremium,
  type Cause,
  type PremiumBreakdown,
  type PremiumInput,
  type Tier,
} from './premium.js';
export { formatCents, type Money } from './money.js';
export {
  FAILURE_CODES,
  FAILURE_KINDS,
  MESSAGE_VARIANTS,
  failureMessage,
  failureMessages,
  type FailureKind,
  type MessageParams,
} from './messages.js';
export {
  LOGGED_STATUSES,
  TYPICAL_STATUS,
  type FailureSource,
  type FailureSpec,
  type LoggedStatus,
} from './failures.js';
export {
  DEFAULT_BUDGETS,
  type BudgetCounters,
  type BudgetLimit,
  type BudgetName,
  type BudgetsOptions,
} from './budgets.js';
export { PASS_THROUGH_PATHS, type PassThroughPath } from './routes.js';
export { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, type StoredRecord } from './store.js';
export type { ErrorBodyFormat } from './answers.js';
export type { RecordedRequest } from './request-log.js';
