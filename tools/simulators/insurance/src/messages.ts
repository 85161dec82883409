/**
 * The wording of the seven failures seen in the provider's error log. Each kind has a few
 * variants, because the log shows the same failure phrased differently; every variant keeps the
 * words a classifier keys on. Variant 0 is the canonical wording, also used by real validation.
 */

export const FAILURE_KINDS = [
  'missing_field',
  'out_of_range',
  'coverage_not_supported',
  'premium_timeout',
  'underwriting_unavailable',
  'missing_auth',
  'rate_limited',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** The `error` code of the assumed error body, per kind. */
export const FAILURE_CODES: Readonly<Record<FailureKind, string>> = {
  missing_field: 'missing_required_field',
  out_of_range: 'value_out_of_range',
  coverage_not_supported: 'coverage_not_supported',
  premium_timeout: 'premium_calculation_timeout',
  underwriting_unavailable: 'underwriting_unavailable',
  missing_auth: 'missing_authorization',
  rate_limited: 'rate_limit_exceeded',
};

export interface MessageParams {
  /** missing_field: dotted path of the missing field (default `vehicle.value`). */
  field?: string;
  /** coverage_not_supported: coverage type and region named in the message. */
  coverage?: string;
  region?: string;
  /** rate_limited: the limit and its period (default 120 per minute). */
  limit?: number;
  per?: string;
}

type Wording = (params: Required<MessageParams>) => string;

const WORDINGS: Readonly<Record<FailureKind, readonly Wording[]>> = {
  missing_field: [
    (p) => `Missing required field: ${p.field}`,
    (p) => `Request validation failed: required field '${p.field}' is missing`,
    (p) => `${p.field} is required`,
  ],
  out_of_range: [
    () => 'driver_age must be between 18 and 75',
    () => 'Value out of range: driver_age must be between 18 and 75',
    () => 'driver_age is out of range (allowed 18 to 75)',
  ],
  coverage_not_supported: [
    (p) => `Coverage type '${p.coverage}' is not supported in region '${p.region}'`,
    (p) => `Coverage type ${p.coverage} not supported in region ${p.region}`,
    (p) => `Requested coverage type is not supported in this region (${p.coverage}, ${p.region})`,
  ],
  premium_timeout: [
    () => 'Premium calculation timed out, please retry',
    () => 'Premium calculation timeout',
    () => 'Timed out while calculating the premium, please retry',
  ],
  underwriting_unavailable: [
    () => 'Underwriting service unavailable',
    () => 'Underwriting service is temporarily unavailable, please try again later',
    () => 'Service unavailable: underwriting engine did not respond',
  ],
  missing_auth: [
    () => 'Missing Authorization header',
    () => 'missing Authorization header',
    () => 'Authorization header is missing',
  ],
  rate_limited: [
    (p) => `Rate limit exceeded (${p.limit} per ${p.per})`,
    (p) => `rate limit exceeded (${p.limit} per ${p.per})`,
    (p) => `Too many requests: rate limit exceeded (${p.limit} per ${p.per})`,
  ],
};

export const MESSAGE_VARIANTS = 3;

const DEFAULT_PARAMS: Required<MessageParams> = {
  field: 'vehicle.value',
  coverage: 'motor_comprehensive',
  region: 'ZA-NC',
  limit: 120,
  per: 'minute',
};

export function failureMessage(kind: FailureKind, params: MessageParams = {}, variant = 0): string {
  const wording = WORDINGS[kind][variant];
  if (!wording) throw new RangeError(`variant must be an integer from 0 to ${MESSAGE_VARIANTS - 1}, got ${variant}`);
  return wording({ ...DEFAULT_PARAMS, ...definedOnly(params) });
}

/** Every wording of a kind, for classifier tests. */
export function failureMessages(kind: FailureKind, params: MessageParams = {}): string[] {
  return WORDINGS[kind].map((_, variant) => failureMessage(kind, params, variant));
}

/** "minute" for 60 s, "second" for 1 s, otherwise the window in seconds, so a shortened test window is not misreported. */
export function describeWindow(windowMs: number): string {
  if (windowMs === 60_000) return 'minute';
  if (windowMs === 1_000) return 'second';
  return `${windowMs / 1000} seconds`;
}

function definedOnly(params: MessageParams): MessageParams {
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
}
