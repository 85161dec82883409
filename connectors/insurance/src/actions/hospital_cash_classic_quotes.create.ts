import { quoteAction } from './hospital-cash-quote.js';

/** `POST /v1/hospital-cash/classic/quotes`. */
export const hospitalCashClassicQuotesCreate = quoteAction('classic');
