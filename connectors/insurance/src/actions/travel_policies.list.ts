import { PATHS } from '../contract.js';
import { TravelPolicy } from '../entities.js';
import { listAction } from './pass-through.js';

export const travelPoliciesList = listAction({
  key: 'travel_policies.list',
  label: 'List travel policies',
  description:
    'Travel policies, oldest first, every page (GET /v1/travel/policies); records passed through as the provider sends them.',
  path: PATHS.travelPolicies,
  entity: TravelPolicy,
});
