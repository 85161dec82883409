import { PATHS } from '../contract.js';
import { MotorPolicy } from '../entities.js';
import { createAction } from './pass-through.js';

export const motorPoliciesCreate = createAction({
  key: 'motor_policies.create',
  label: 'Create a motor policy',
  description:
    'Binds motor cover (POST /v2/motor/policies) with the body passed through unchecked. Billable: approved before production, never retried automatically.',
  path: PATHS.motorPolicies,
  entity: MotorPolicy,
  kind: 'policy',
});
