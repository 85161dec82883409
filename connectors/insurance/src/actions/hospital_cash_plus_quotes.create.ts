import { quoteAction } from './hospital-cash-quote.js';

/** `POST /v1/hospital-cash/plus/quotes`. */
export const hospitalCashPlusQuotesCreate = quoteAction('plus');
