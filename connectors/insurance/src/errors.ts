import {
  AuthenticationError,
  classifyByStatus,
  type ConnectorError,
  type ConnectorErrorOptions,
  type ProviderFailure,
  ProviderRejectedError,
  ProviderUnavailableError,
  RateLimitedError,
  TimeoutError,
} from '@plugboard/sdk';

/**
 * The seven failures of the provider's failed-call log. The log ties no message to one status
 * (400, 401, 422, 429 and 503 all occur with any of them), so a failure is classified by its
 * message first, then by the `error` code of the assumed error body, and only then by status.
 * Every error carries the provider's status and request id (`req_<hex>`).
 */

export const INSURANCE_ERROR_CODES = {
  missingRequiredField: 'missing_required_field',
  valueOutOfRange: 'value_out_of_range',
  coverageNotSupported: 'coverage_not_supported',
  premiumCalculationTimeout: 'premium_calculation_timeout',
  underwritingUnavailable: 'underwriting_unavailable',
  missingAuthorization: 'missing_authorization',
  rateLimited: 'rate_limited',
} as const;
export type InsuranceErrorCode = (typeof INSURANCE_ERROR_CODES)[keyof typeof INSURANCE_ERROR_CODES];

/** The provider refused a value outside its allowed range; `range` when the message gives it. */
export class ValueOutOfRangeError extends ProviderRejectedError {
  readonly range: { min: number; max: number } | undefined;

  constructor(
    message: string,
    options: ConnectorErrorOptions & { field?: string | undefined; range?: { min: number; max: number } | undefined },
  ) {
    super(message, { ...options, code: INSURANCE_ERROR_CODES.valueOutOfRange });
    this.range = options.range;
  }
}

/** The coverage type asked for is not offered in the region; `coverage` and `region` when named. */
export class CoverageNotSupportedError extends ProviderRejectedError {
  readonly coverage: string | undefined;
  readonly region: string | undefined;

  constructor(
    message: string,
    options: ConnectorErrorOptions & { coverage?: string | undefined; region?: string | undefined },
  ) {
    super(message, { ...options, code: INSURANCE_ERROR_CODES.coverageNotSupported });
    this.coverage = options.coverage;
    this.region = options.region;
  }
}

/** The request carried no credential at all (rather than a wrong one). */
export class MissingAuthorizationError extends AuthenticationError {
  override readonly code: string = INSURANCE_ERROR_CODES.missingAuthorization;
}

type Kind = keyof typeof INSURANCE_ERROR_CODES;

/** Message tests, in order: the first that matches decides. Auth and rate limits come first, as their wording also says "missing" or "exceeded". */
const MESSAGE_RULES: ReadonlyArray<{ kind: Kind; test: (text: string) => boolean }> = [
  {
    kind: 'missingAuthorization',
    test: (t) => /authori[sz]ation\s+header/i.test(t) && /\b(missing|absent|no)\b|not (provided|present)/i.test(t),
  },
  { kind: 'rateLimited', test: (t) => /rate[\s_-]*limit|too many requests/i.test(t) },
  { kind: 'premiumCalculationTimeout', test: (t) => /\bpremium\b/i.test(t) && /tim(e|ed|ing)[\s_-]*out/i.test(t) },
  {
    kind: 'underwritingUnavailable',
    test: (t) => /underwriting/i.test(t) && /unavailable|did not respond|not responding|\bdown\b/i.test(t),
  },
  { kind: 'coverageNotSupported', test: (t) => /coverage/i.test(t) && /not\s+supported|unsupported/i.test(t) },
  {
    kind: 'valueOutOfRange',
    test: (t) => /out of range|between\s+-?[\d.]+\s+and\s+-?[\d.]+|(from|allowed)\s+-?[\d.]+\s+to\s+-?[\d.]+/i.test(t),
  },
  {
    kind: 'missingRequiredField',
    test: (t) => /missing required field|required field\b.*\bmissing|\bis required\b/i.test(t),
  },
];

const CODE_KINDS: Readonly<Record<string, Kind>> = {
  missing_required_field: 'missingRequiredField',
  value_out_of_range: 'valueOutOfRange',
  coverage_not_supported: 'coverageNotSupported',
  premium_calculation_timeout: 'premiumCalculationTimeout',
  underwriting_unavailable: 'underwritingUnavailable',
  missing_authorization: 'missingAuthorization',
  rate_limit_exceeded: 'rateLimited',
  rate_limited: 'rateLimited',
};

const FIELD = String.raw`'?"?([A-Za-z_][\w.\[\]]*)'?"?`;
const MISSING_FIELD_PATTERNS = [
  new RegExp(String.raw`missing required field:?\s*${FIELD}`, 'i'),
  new RegExp(String.raw`required field\s+${FIELD}\s+is missing`, 'i'),
  new RegExp(String.raw`^${FIELD}\s+is required`, 'i'),
];
const RANGE_FIELD_PATTERNS = [new RegExp(String.raw`(?:^|:\s*)${FIELD}\s+(?:must be|is out of range)`, 'i')];
const RANGE_PATTERNS = [
  /between\s+(-?\d+(?:\.\d+)?)\s+and\s+(-?\d+(?:\.\d+)?)/i,
  /(?:from|allowed)\s+(-?\d+(?:\.\d+)?)\s+to\s+(-?\d+(?:\.\d+)?)/i,
];
const COVERAGE_PATTERNS = [
  /coverage type\s+'?([\w-]+)'?\s+(?:is\s+)?not supported in region\s+'?([\w-]+)'?/i,
  /not supported in this region\s*\(\s*([\w-]+)\s*,\s*([\w-]+)\s*\)/i,
];

/** A field path named in a message, without a sentence's closing dot. */
function fieldIn(patterns: readonly RegExp[], text: string): string | undefined {
  return firstMatch(patterns, text)?.[1]?.replace(/\.+$/, '') || undefined;
}

function firstMatch(patterns: readonly RegExp[], text: string): RegExpExecArray | undefined {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match) return match;
  }
  return undefined;
}

function bodyRecord(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

function kindOf(failure: ProviderFailure): Kind | undefined {
  const byMessage = MESSAGE_RULES.find((rule) => rule.test(failure.message))?.kind;
  if (byMessage) return byMessage;
  const code = bodyRecord(failure.body).error;
  return typeof code === 'string' ? CODE_KINDS[code.toLowerCase()] : undefined;
}

/** `POST /v2/motor/quotes: <message> (request req_…)`: the request id in the text too, for people reading logs. */
function describe(failure: ProviderFailure, detail?: string): string {
  const request = failure.requestId ? ` (request ${failure.requestId})` : '';
  return `${failure.operation}: ${failure.message}${detail ? ` [${detail}]` : ''}${request}`;
}

/** Classifies a failed answer of the insurance API; wired into the connector as `classifyError`. */
export function classifyInsuranceFailure(failure: ProviderFailure): ConnectorError {
  const options = { status: failure.status, requestId: failure.requestId };
  const bodyField = bodyRecord(failure.body).field;
  const namedField = typeof bodyField === 'string' && bodyField ? bodyField : undefined;
  switch (kindOf(failure)) {
    case 'missingAuthorization':
      return new MissingAuthorizationError(
        describe(failure, 'send the API key as a bearer token or in X-Api-Key'),
        options,
      );
    case 'rateLimited':
      return new RateLimitedError(describe(failure), failure.retryAfterMs, options);
    case 'premiumCalculationTimeout':
      return new TimeoutError(describe(failure), {
        ...options,
        code: INSURANCE_ERROR_CODES.premiumCalculationTimeout,
        retryable: true,
      });
    case 'underwritingUnavailable':
      return new ProviderUnavailableError(describe(failure), {
        ...options,
        code: INSURANCE_ERROR_CODES.underwritingUnavailable,
      });
    case 'coverageNotSupported': {
      const match = firstMatch(COVERAGE_PATTERNS, failure.message);
      return new CoverageNotSupportedError(describe(failure), { ...options, coverage: match?.[1], region: match?.[2] });
    }
    case 'valueOutOfRange': {
      const field = namedField ?? fieldIn(RANGE_FIELD_PATTERNS, failure.message);
      const bounds = firstMatch(RANGE_PATTERNS, failure.message);
      const range = bounds ? { min: Number(bounds[1]), max: Number(bounds[2]) } : undefined;
      const detail = [field && `field ${field}`, range && `allowed ${range.min} to ${range.max}`]
        .filter(Boolean)
        .join(', ');
      return new ValueOutOfRangeError(describe(failure, detail), { ...options, field, range });
    }
    case 'missingRequiredField': {
      const field = namedField ?? fieldIn(MISSING_FIELD_PATTERNS, failure.message);
      return new ProviderRejectedError(describe(failure, field && `missing field ${field}`), {
        ...options,
        field,
        code: INSURANCE_ERROR_CODES.missingRequiredField,
      });
    }
    case undefined: {
      const error = classifyByStatus(failure);
      if (failure.requestId && !error.message.includes(failure.requestId))
        error.message += ` (request ${failure.requestId})`;
      return error;
    }
  }
}
