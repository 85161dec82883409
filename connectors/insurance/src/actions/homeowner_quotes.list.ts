import { PATHS } from '../contract.js';
import { HomeownerQuote } from '../entities.js';
import { listAction } from './pass-through.js';

export const homeownerQuotesList = listAction({
  key: 'homeowner_quotes.list',
  label: 'List homeowner quotes',
  description:
    'Homeowner quotes, oldest first, every page (GET /v1/homeowner/quotes); records passed through as the provider sends them.',
  path: PATHS.homeownerQuotes,
  entity: HomeownerQuote,
});
