import { type ActionContext, defineAction, SchemaMismatchError, zodIssues } from '@plugboard/sdk';
import { BUDGETS, PATHS, type Tier } from '../contract.js';
import { quoteOptions } from '../quote-options.js';
import { HospitalCashQuote, HospitalCashQuoteRequest } from '../entities.js';

const BENEFIT: Readonly<Record<Tier, string>> = {
  basic: 'entry-level',
  classic: 'mid-tier',
  plus: 'premium',
};

/** One hospital cash quote of a tier, its answer checked against the assumed shape. */
export async function requestQuote(
  ctx: ActionContext,
  tier: Tier,
  input: HospitalCashQuoteRequest,
): Promise<HospitalCashQuote> {
  const answer = await ctx.http.request({
    method: 'POST',
    path: PATHS.hospitalCashQuote,
    params: { tier },
    json: input,
    budget: BUDGETS.quotes,
  });
  const quote = HospitalCashQuote.safeParse(answer.data);
  if (!quote.success) {
    throw new SchemaMismatchError(`insurance hospital_cash_${tier}_quotes.create`, zodIssues(quote.error), {
      status: answer.status,
      requestId: answer.requestId,
    });
  }
  if (quote.data.tier !== tier) {
    throw new SchemaMismatchError(
      `insurance hospital_cash_${tier}_quotes.create`,
      [{ path: 'tier', message: `the provider quoted '${quote.data.tier}', not '${tier}'` }],
      {
        status: answer.status,
        requestId: answer.requestId,
      },
    );
  }
  return quote.data;
}

/** The quote action of one tier: `POST /v1/hospital-cash/{tier}/quotes`. */
export function quoteAction(tier: Tier) {
  return defineAction({
    key: `hospital_cash_${tier}_quotes.create`,
    label: `Quote hospital cash (${tier})`,
    description: `Prices the ${tier} tier (${BENEFIT[tier]} daily benefit) of hospital cash cover for an applicant, a cause and a confinement of 2 to 20 days. A quote binds no cover: asking again is safe.`,
    direction: 'destination',
    effect: 'read',
    entity: HospitalCashQuote,
    input: HospitalCashQuoteRequest,
    options: quoteOptions,
    budget: BUDGETS.quotes,
    write: (ctx, input) => requestQuote(ctx, tier, input),
  });
}
