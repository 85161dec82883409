import { RATIO_PLACES, TIERS } from './contract.js';
import type { HospitalCashComparison, HospitalCashQuote, HospitalCashQuoteRequest } from './entities.js';
import { divide, toCents } from './money.js';

/** Quotes that cannot be compared: different currencies, or a premium of zero. */
export class IncomparableQuotesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IncomparableQuotesError';
  }
}

/**
 * Puts the tiers' quotes side by side: cheapest premium first (compared as integer cents; ties
 * keep the tier order), each with its maximum benefit per unit of premium, computed in integer
 * arithmetic and written as a decimal string, never through a float.
 */
export function compareQuotes(
  request: HospitalCashQuoteRequest,
  quotes: readonly HospitalCashQuote[],
): HospitalCashComparison {
  const [first] = quotes;
  if (!first) throw new IncomparableQuotesError('no quotes to compare');
  const currency = first.premium.currency;
  for (const quote of quotes) {
    for (const amount of [quote.premium, quote.maximum_benefit, quote.daily_benefit]) {
      if (amount.currency !== currency) {
        throw new IncomparableQuotesError(
          `the ${quote.tier} quote ${quote.quote_id} is in ${amount.currency}, the others in ${currency}`,
        );
      }
    }
  }
  const priced = quotes.map((quote) => {
    const premium = toCents(quote.premium.amount);
    if (premium === 0n)
      throw new IncomparableQuotesError(`the ${quote.tier} quote ${quote.quote_id} has a premium of zero`);
    return { quote, premium, benefitPerPremium: divide(toCents(quote.maximum_benefit.amount), premium, RATIO_PLACES) };
  });
  priced.sort((a, b) =>
    a.premium === b.premium
      ? TIERS.indexOf(a.quote.tier) - TIERS.indexOf(b.quote.tier)
      : a.premium < b.premium
        ? -1
        : 1,
  );
  return {
    cause: request.cause,
    confinement_days: request.confinement_days,
    ...(request.cover_start === undefined ? {} : { cover_start: request.cover_start }),
    currency,
    cheapest_tier: priced[0]!.quote.tier,
    quotes: priced.map(({ quote, benefitPerPremium }) => ({ ...quote, benefit_per_premium: benefitPerPremium })),
  };
}
