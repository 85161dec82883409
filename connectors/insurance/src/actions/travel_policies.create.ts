import { PATHS } from '../contract.js';
import { TravelPolicy } from '../entities.js';
import { createAction } from './pass-through.js';

export const travelPoliciesCreate = createAction({
  key: 'travel_policies.create',
  label: 'Create a travel policy',
  description:
    'Binds travel cover (POST /v1/travel/policies) with the body passed through unchecked. Billable: approved before production, never retried automatically.',
  path: PATHS.travelPolicies,
  entity: TravelPolicy,
  kind: 'policy',
});
