import { createRequire } from 'node:module';
import { bearerToken, defineConnector } from '@plugboard/sdk';
import { itemsCreate } from './actions/items-create.js';
import { itemsList } from './actions/items-list.js';

/** The package's version, one level up from both src/ and dist/. */
const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

export default defineConnector({
  key: '{{key}}',
  name: '{{title}}',
  version,
  vendor: null,
  category: 'developer',
  status: 'alpha',
  summary: 'Items of the {{title}} API: an incremental list and a create.',
  auth: bearerToken(),
  baseUrl: 'https://api.{{key}}.example/v1',
  rateLimits: { default: { limit: 10, per: 'second' } },
  actions: [itemsList, itemsCreate],
});
