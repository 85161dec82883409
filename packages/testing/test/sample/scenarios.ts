import { fileURLToPath } from 'node:url';
import { defineScenario, type Scenario } from '../../src/index.js';

/** The sample connector's scenarios, and where their committed fixtures live. */

export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The fixed canary the committed fixtures were recorded with; no fixture in the repository may hold it. */
export const PLANTED_CANARY = 'canary-5f0e2c9b7d1a4e38b6c2+/=';

export const tasksFull = defineScenario({
  name: 'tasks-full',
  action: 'tasks.list',
  input: { limit: 2 },
  description: 'Five tasks over three pages, from no checkpoint.',
});

export const tasksSince = defineScenario({
  name: 'tasks-since',
  action: 'tasks.list',
  input: { limit: 2 },
  // Where tasks-full ends; the provider has two more tasks by then.
  checkpoint: { updated_after: '2026-01-05T09:00:00.000Z' },
  description: "The second run, from the first run's checkpoint.",
});

export const account = defineScenario({ name: 'account', action: 'account.get', input: {} });

export const invoiceCreate = defineScenario({
  name: 'invoice-create',
  action: 'invoices.create',
  input: { customer: 'cus_42', amount_cents: 1250, memo: 'March' },
  environment: 'production',
  approvedBy: 'test-approver',
});

export const invoiceOverQuota = defineScenario({
  name: 'invoice-over-quota',
  action: 'invoices.create',
  input: { customer: 'cus_42', amount_cents: 500_000 },
  expect: { error: 'quota_exhausted' },
});

export const scenarios: Scenario[] = [tasksFull, tasksSince, account, invoiceCreate, invoiceOverQuota];
