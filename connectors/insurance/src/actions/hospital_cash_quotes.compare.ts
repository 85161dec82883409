import { ConnectorError, defineAction } from '@plugboard/sdk';
import { compareQuotes, IncomparableQuotesError } from '../compare.js';
import { BUDGETS, TIERS } from '../contract.js';
import { HospitalCashComparison, HospitalCashQuoteRequest } from '../entities.js';
import { quoteOptions } from '../quote-options.js';
import { requestQuote } from './hospital-cash-quote.js';

/**
 * Quotes the three tiers for the same applicant (three requests, at most three in flight, each
 * drawn from the shared hospital cash quote budget) and returns them cheapest premium first.
 */
export const hospitalCashQuotesCompare = defineAction({
  key: 'hospital_cash_quotes.compare',
  label: 'Compare hospital cash quotes',
  description:
    'Quotes the basic, classic and plus tiers for the same applicant and returns them side by side, cheapest premium first, each with its maximum benefit per unit of premium. Spends three requests of the hospital cash quote budget; binds no cover.',
  direction: 'destination',
  effect: 'read',
  entity: HospitalCashComparison,
  input: HospitalCashQuoteRequest,
  options: quoteOptions,
  budget: BUDGETS.quotes,
  async write(ctx, input) {
    const settled = await Promise.allSettled(TIERS.map((tier) => requestQuote(ctx, tier, input)));
    const quotes = settled.map((result) => {
      if (result.status === 'rejected') throw result.reason;
      return result.value;
    });
    try {
      return compareQuotes(input, quotes);
    } catch (error) {
      if (!(error instanceof IncomparableQuotesError)) throw error;
      throw new ConnectorError(`insurance hospital_cash_quotes.compare: ${error.message}`, {
        code: 'quotes_not_comparable',
        retryable: false,
        platformStatus: 502,
        requestId: ctx.http.lastRequestId,
      });
    }
  },
});
