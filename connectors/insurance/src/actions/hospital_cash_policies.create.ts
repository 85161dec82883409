import { PATHS } from '../contract.js';
import { HospitalCashPolicy } from '../entities.js';
import { createAction } from './pass-through.js';

export const hospitalCashPoliciesCreate = createAction({
  key: 'hospital_cash_policies.create',
  label: 'Create a hospital cash policy',
  description:
    'Binds hospital cash cover (POST /v1/hospital-cash/policies) with the body passed through unchecked. Billable: approved before production, never retried automatically.',
  path: PATHS.hospitalCashPolicies,
  entity: HospitalCashPolicy,
  kind: 'policy',
});
