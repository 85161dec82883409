import { PATHS } from '../contract.js';
import { HomeownerQuote } from '../entities.js';
import { createAction } from './pass-through.js';

export const homeownerQuotesCreate = createAction({
  key: 'homeowner_quotes.create',
  label: 'Request a homeowner quote',
  description:
    'Sends a homeowner quote request (POST /v1/homeowner/quotes) with the body passed through unchecked. A quote binds no cover: safe to repeat.',
  path: PATHS.homeownerQuotes,
  entity: HomeownerQuote,
  kind: 'quote',
});
