import { createRequire } from 'node:module';
import { {{authFactory}}, defineConnector } from '@plugboard/sdk';
{{imports}}

/** The package's version, one level up from both src/ and dist/. */
const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

export default defineConnector({
  key: '{{key}}',
  name: '{{title}}',
  version,
  vendor: null,
  category: 'developer',
  status: 'alpha',
  summary: {{summary}},{{authNote}}
  auth: {{auth}},
  baseUrl: {{baseUrl}},
  rateLimits: { default: { limit: 10, per: 'second' } },
  actions: [{{actionList}}],
});
