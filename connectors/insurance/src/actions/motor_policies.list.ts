import { PATHS } from '../contract.js';
import { MotorPolicy } from '../entities.js';
import { listAction } from './pass-through.js';

export const motorPoliciesList = listAction({
  key: 'motor_policies.list',
  label: 'List motor policies',
  description:
    'Motor policies, oldest first, every page (GET /v2/motor/policies); records passed through as the provider sends them.',
  path: PATHS.motorPolicies,
  entity: MotorPolicy,
});
