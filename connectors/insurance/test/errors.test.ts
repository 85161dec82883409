import {
  AuthenticationError,
  type ConnectorError,
  ProviderRejectedError,
  ProviderUnavailableError,
  RateLimitedError,
  TimeoutError,
  writeAction,
  type ProviderFailure,
} from '@plugboard/sdk';
import { FAILURE_KINDS, failureMessages, LOGGED_STATUSES, type FailureKind } from '@plugboard/simulator-insurance';
import { describe, expect, it } from 'vitest';
import insurance, {
  classifyInsuranceFailure,
  CoverageNotSupportedError,
  MissingAuthorizationError,
  ValueOutOfRangeError,
} from '../src/index.js';
import { QUOTE_REQUEST, REQUEST_ID, useHarness } from './support.js';

const start = useHarness();

/** What each of the log's seven failures must become, whatever status it comes with. */
const EXPECTED: Record<
  FailureKind,
  { code: string; kind: new (...args: any[]) => ConnectorError; retryable: boolean; extra?: Record<string, unknown> }
> = {
  missing_field: {
    code: 'missing_required_field',
    kind: ProviderRejectedError,
    retryable: false,
    extra: { field: 'vehicle.value' },
  },
  out_of_range: {
    code: 'value_out_of_range',
    kind: ValueOutOfRangeError,
    retryable: false,
    extra: { field: 'driver_age', range: { min: 18, max: 75 } },
  },
  coverage_not_supported: { code: 'coverage_not_supported', kind: CoverageNotSupportedError, retryable: false },
  premium_timeout: { code: 'premium_calculation_timeout', kind: TimeoutError, retryable: true },
  underwriting_unavailable: { code: 'underwriting_unavailable', kind: ProviderUnavailableError, retryable: true },
  missing_auth: { code: 'missing_authorization', kind: MissingAuthorizationError, retryable: false },
  rate_limited: { code: 'rate_limited', kind: RateLimitedError, retryable: true },
};

const TABLE = FAILURE_KINDS.flatMap((kind) => LOGGED_STATUSES.map((status) => [kind, status] as const));

describe('each failure of the log maps to its code whatever status it arrives with (through the simulator)', () => {
  it.each(TABLE)('%s with HTTP %i', async (kind, status) => {
    const { sim, options } = await start();
    sim.failNext({ kind, status, retryAfterSeconds: null });
    // No retry here, so the first answer is the one classified.
    const error = await writeAction(
      insurance,
      'hospital_cash_classic_quotes.create',
      options(QUOTE_REQUEST, { retry: { retries: 0 } }),
    ).catch((caught: unknown) => caught);
    const expected = EXPECTED[kind];
    expect(error).toBeInstanceOf(expected.kind);
    const requestId = sim.requests.at(-1)!.requestId;
    expect(requestId).toMatch(REQUEST_ID);
    expect(error).toMatchObject({
      code: expected.code,
      retryable: expected.retryable,
      status,
      requestId,
      ...expected.extra,
    });
    expect((error as Error).message).toContain(requestId);
    expect((error as ConnectorError).toPlatformError('/x')).toMatchObject({ requestId, code: expected.code });
    expect(sim.requests).toHaveLength(1);
  });
});

describe('every wording, every status and every body shape (classifier on its own)', () => {
  const failure = (
    message: string,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): ProviderFailure => ({
    status,
    headers: new Headers(headers),
    body,
    message,
    requestId: 'req_0a1b2c',
    retryAfterMs: headers['retry-after'] ? Number(headers['retry-after']) * 1000 : undefined,
    operation: 'POST /v2/motor/quotes',
  });
  const cases = FAILURE_KINDS.flatMap((kind) =>
    failureMessages(kind).flatMap((message, variant) =>
      LOGGED_STATUSES.map((status) => [kind, variant, status, message] as const),
    ),
  );

  it.each(cases)('%s wording %i with HTTP %i as bare text: "%s"', (kind, _variant, status, message) => {
    const error = classifyInsuranceFailure(failure(message, status, message));
    const expected = EXPECTED[kind];
    expect(error).toBeInstanceOf(expected.kind);
    expect(error).toMatchObject({
      code: expected.code,
      retryable: expected.retryable,
      status,
      requestId: 'req_0a1b2c',
      ...expected.extra,
    });
    expect(error.message).toContain('req_0a1b2c');
  });

  it('names the field and the range the message gives', () => {
    const missing = classifyInsuranceFailure(
      failure(
        'Missing required field: applicant.date_of_birth.',
        400,
        'Missing required field: applicant.date_of_birth.',
      ),
    );
    expect(missing).toMatchObject({ code: 'missing_required_field', field: 'applicant.date_of_birth' });
    const range = classifyInsuranceFailure(
      failure('confinement_days must be an integer from 2 to 20', 422, {
        error: 'value_out_of_range',
        field: 'confinement_days',
      }),
    );
    expect(range).toMatchObject({ code: 'value_out_of_range', field: 'confinement_days', range: { min: 2, max: 20 } });
    expect(range.message).toContain('field confinement_days, allowed 2 to 20');
  });

  it('keeps the Retry-After of a rate limit', () => {
    const error = classifyInsuranceFailure(
      failure('Rate limit exceeded (120 per minute)', 429, {}, { 'retry-after': '7' }),
    );
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(7000);
  });

  it('falls back to the error code of the body, then to the status', () => {
    expect(
      classifyInsuranceFailure(
        failure('Something odd', 400, { error: 'underwriting_unavailable', message: 'Something odd' }),
      ),
    ).toMatchObject({
      code: 'underwriting_unavailable',
    });
    const byStatus = classifyInsuranceFailure(
      failure('Invalid API key', 401, { error: 'invalid_api_key', message: 'Invalid API key' }),
    );
    expect(byStatus).toBeInstanceOf(AuthenticationError);
    expect(byStatus).toMatchObject({ code: 'authentication_failed', requestId: 'req_0a1b2c' });
    expect(byStatus.message).toContain('req_0a1b2c');
    const rejected = classifyInsuranceFailure(
      failure('cause must be one of illness, accidental_injury', 422, { error: 'invalid_value', field: 'cause' }),
    );
    expect(rejected).toMatchObject({ code: 'provider_rejected', field: 'cause', status: 422 });
  });
});

describe('bodies other than the assumed one', () => {
  it.each(['text', 'problem'] as const)('classifies a %s error body by its message', async (format) => {
    const { sim, options } = await start();
    sim.failNext({ kind: 'out_of_range', status: 400, format, variant: 1 });
    const error = await writeAction(
      insurance,
      'motor_quotes.create',
      options({ vehicle: { value: 1 } }, { retry: { retries: 0 } }),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'value_out_of_range',
      field: 'driver_age',
      range: { min: 18, max: 75 },
      status: 400,
      requestId: sim.requests[0]!.requestId,
    });
  });
});
