import { fileURLToPath } from 'node:url';
import type { InsuranceSimulator } from '@plugboard/simulator-insurance';
import { defineScenario, type Scenario } from '@plugboard/testing';

/**
 * The recorded scenarios: at least one successful run of every action, plus failures the
 * provider's log shows. Fixtures are recorded from the simulator (test/record.test.ts, opt-in)
 * and replayed by the standard suite (test/suite.test.ts) with the network closed.
 */

export const FIXTURES_DIR = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** Dates stay valid whenever the fixtures are replayed: no cover start, or one far ahead. */
const quote = { applicant: { date_of_birth: '1988-04-12' }, cause: 'illness', confinement_days: 7 };

interface Recorded {
  scenario: Scenario;
  /** Prepares the simulator just before recording (scripted failures, seeded records). */
  setup?: (sim: InsuranceSimulator) => void | Promise<void>;
}

const recorded: Recorded[] = [
  {
    scenario: defineScenario({
      name: 'hospital_cash_basic_quotes.create',
      action: 'hospital_cash_basic_quotes.create',
      input: quote,
    }),
  },
  {
    scenario: defineScenario({
      name: 'hospital_cash_classic_quotes.create',
      action: 'hospital_cash_classic_quotes.create',
      input: {
        applicant: { date_of_birth: '1961-09-30' },
        cause: 'accidental_injury',
        confinement_days: 2,
        cover_start: '2099-01-01',
      },
    }),
  },
  {
    scenario: defineScenario({
      name: 'hospital_cash_plus_quotes.create',
      action: 'hospital_cash_plus_quotes.create',
      input: { ...quote, confinement_days: 20 },
    }),
  },
  {
    scenario: defineScenario({
      name: 'hospital_cash_plus_quotes.create.premium-timeout-retried',
      action: 'hospital_cash_plus_quotes.create',
      input: quote,
      description: 'A premium calculation timeout (503) is retried: a quote is safe to ask again.',
    }),
    setup: (sim) => sim.failNext({ kind: 'premium_timeout', status: 503 }),
  },
  {
    scenario: defineScenario({
      name: 'hospital_cash_quotes.compare',
      action: 'hospital_cash_quotes.compare',
      input: quote,
    }),
  },
  {
    scenario: defineScenario({
      name: 'hospital_cash_quotes.compare.coverage-not-supported',
      action: 'hospital_cash_quotes.compare',
      input: quote,
      expect: { error: 'coverage_not_supported' },
      description:
        "The plus tier is refused in the region (with a 400): the comparison fails, naming the tier's request id.",
    }),
    setup: (sim) =>
      sim.failNext({ kind: 'coverage_not_supported', status: 400, path: '/v1/hospital-cash/plus/quotes' }),
  },
  {
    scenario: defineScenario({
      name: 'motor_quotes.create',
      action: 'motor_quotes.create',
      input: { vehicle: { value: '185000.00', make: 'Toyota', model: 'Corolla' }, driver_age: 34 },
    }),
  },
  {
    scenario: defineScenario({
      name: 'motor_quotes.create.driver-too-young',
      action: 'motor_quotes.create',
      input: { vehicle: { value: '185000.00' }, driver_age: 17 },
      expect: { error: 'invalid_input' },
      description: 'Refused before sending: no request is made.',
    }),
  },
  {
    scenario: defineScenario({
      name: 'motor_policies.create',
      action: 'motor_policies.create',
      input: { quote_id: 'mq_example', start: '2099-01-01' },
      environment: 'production',
      approvedBy: 'test-approver',
      description: 'Binds cover in production with an approval bound to this run.',
    }),
  },
  {
    scenario: defineScenario({
      name: 'motor_policies.create.underwriting-unavailable',
      action: 'motor_policies.create',
      input: { quote_id: 'mq_example' },
      expect: { error: 'underwriting_unavailable' },
      description: 'A billable write is sent once and not retried on a 503.',
    }),
    setup: (sim) => sim.failNext({ kind: 'underwriting_unavailable', status: 503 }),
  },
  {
    scenario: defineScenario({
      name: 'travel_policies.create',
      action: 'travel_policies.create',
      input: { traveller: { name: 'Ada' }, destination: 'PT' },
    }),
  },
  {
    scenario: defineScenario({
      name: 'homeowner_quotes.create',
      action: 'homeowner_quotes.create',
      input: { property: { value: { amount: '2500000.00', currency: 'ZAR' } } },
    }),
  },
  {
    scenario: defineScenario({
      name: 'homeowner_quotes.create.missing-field-text',
      action: 'homeowner_quotes.create',
      input: { property: {} },
      expect: { error: 'missing_required_field' },
      description: 'A bare-text error body with a 400 is classified by its message.',
    }),
    setup: (sim) =>
      sim.failNext({ kind: 'missing_field', status: 400, format: 'text', field: 'property.value', variant: 1 }),
  },
  {
    scenario: defineScenario({
      name: 'hospital_cash_policies.create',
      action: 'hospital_cash_policies.create',
      input: { quote_id: 'hcq_example' },
    }),
  },
  { scenario: defineScenario({ name: 'motor_quotes.list', action: 'motor_quotes.list', input: {} }) },
  { scenario: defineScenario({ name: 'motor_policies.list', action: 'motor_policies.list', input: {} }) },
  { scenario: defineScenario({ name: 'travel_policies.list', action: 'travel_policies.list', input: {} }) },
  {
    scenario: defineScenario({ name: 'hospital_cash_policies.list', action: 'hospital_cash_policies.list', input: {} }),
  },
  {
    scenario: defineScenario({
      name: 'homeowner_quotes.list',
      action: 'homeowner_quotes.list',
      input: { page_size: 2 },
      description: 'Four homeowner quotes over two pages.',
    }),
    setup: async (sim) => {
      for (const n of [1, 2, 3]) {
        await fetch(`${sim.url}/v1/homeowner/quotes`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sim.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ property: { value: { amount: `${n}000000.00`, currency: 'ZAR' } } }),
        });
      }
    },
  },
];

export const RECORDED: readonly Recorded[] = recorded;
export const scenarios: Scenario[] = recorded.map((entry) => entry.scenario);
