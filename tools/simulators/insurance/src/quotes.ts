import type { Answer, ApiError } from './answers.js';
import { isJsonObject, type JsonObject } from './body.js';
import { newId } from './ids.js';
import { failureMessage } from './messages.js';
import {
  CAUSES,
  MAX_CONFINEMENT_DAYS,
  MIN_CONFINEMENT_DAYS,
  ageOn,
  parseIsoDate,
  quotePremium,
  type Cause,
  type Tier,
} from './premium.js';
import { isoDate, isoSeconds, startOfDayAfter } from './timestamps.js';

/** How long a quote stays valid: until midnight UTC, 30 days after it was made. */
const QUOTE_VALID_DAYS = 30;

/** Answers POST /v1/hospital-cash/{tier}/quotes: validates the request, then prices it. No side effect. */
export function quoteHospitalCash(tier: Tier, body: JsonObject, now: number, currency: string): Answer | ApiError {
  const applicant = isJsonObject(body.applicant) ? body.applicant : {};
  const dateOfBirth = applicant.date_of_birth;
  if (isAbsent(dateOfBirth)) return missing('applicant.date_of_birth');
  if (typeof dateOfBirth !== 'string' || !parseIsoDate(dateOfBirth)) {
    return invalid('applicant.date_of_birth', 'applicant.date_of_birth must be a date in YYYY-MM-DD form');
  }
  if (dateOfBirth > isoDate(now))
    return invalid('applicant.date_of_birth', 'applicant.date_of_birth must not be in the future');

  const cause = body.cause;
  if (isAbsent(cause)) return missing('cause');
  if (typeof cause !== 'string' || !(CAUSES as readonly string[]).includes(cause)) {
    return invalid('cause', `cause must be one of ${CAUSES.join(', ')}`);
  }

  const days = body.confinement_days;
  if (isAbsent(days)) return missing('confinement_days');
  const daysRule = `confinement_days must be an integer from ${MIN_CONFINEMENT_DAYS} to ${MAX_CONFINEMENT_DAYS}`;
  // A string such as "7" is refused, not coerced: the contract says integer.
  if (typeof days !== 'number' || !Number.isInteger(days)) return invalid('confinement_days', daysRule);
  if (days < MIN_CONFINEMENT_DAYS || days > MAX_CONFINEMENT_DAYS) {
    return { status: 422, code: 'value_out_of_range', message: daysRule, field: 'confinement_days' };
  }

  const coverStart = body.cover_start;
  if (!isAbsent(coverStart)) {
    if (typeof coverStart !== 'string' || !parseIsoDate(coverStart)) {
      return invalid('cover_start', 'cover_start must be a date in YYYY-MM-DD form');
    }
    if (coverStart < isoDate(now)) return invalid('cover_start', 'cover_start must not be in the past');
  }

  const priced = quotePremium(
    { tier, age: ageOn(dateOfBirth, now), cause: cause as Cause, confinementDays: days },
    currency,
  );
  return {
    status: 201,
    body: {
      quote_id: newId('hcq', 6),
      product: 'hospital_cash',
      tier,
      cause,
      confinement_days: days,
      daily_benefit: priced.dailyBenefit,
      maximum_benefit: priced.maximumBenefit,
      premium: { ...priced.premium, frequency: 'monthly' },
      valid_until: isoSeconds(startOfDayAfter(now, QUOTE_VALID_DAYS)),
      created_at: isoSeconds(now),
    },
  };
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function missing(field: string): ApiError {
  return { status: 422, code: 'missing_required_field', message: failureMessage('missing_field', { field }), field };
}

function invalid(field: string, message: string): ApiError {
  return { status: 422, code: 'invalid_value', message, field };
}
