import { quoteAction } from './hospital-cash-quote.js';

/** `POST /v1/hospital-cash/basic/quotes`. */
export const hospitalCashBasicQuotesCreate = quoteAction('basic');
