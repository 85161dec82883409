import { PATHS } from '../contract.js';
import { HospitalCashPolicy } from '../entities.js';
import { listAction } from './pass-through.js';

export const hospitalCashPoliciesList = listAction({
  key: 'hospital_cash_policies.list',
  label: 'List hospital cash policies',
  description:
    'Hospital cash policies, oldest first, every page (GET /v1/hospital-cash/policies); records passed through as the provider sends them.',
  path: PATHS.hospitalCashPolicies,
  entity: HospitalCashPolicy,
});
