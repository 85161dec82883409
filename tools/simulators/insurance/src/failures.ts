import type { ApiError, ErrorBodyFormat } from './answers.js';
import {
  FAILURE_CODES,
  FAILURE_KINDS,
  MESSAGE_VARIANTS,
  failureMessage,
  type FailureKind,
  type MessageParams,
} from './messages.js';

/** The statuses the provider's error log shows; any failure kind may come with any of them. */
export const LOGGED_STATUSES = [400, 401, 422, 429, 503] as const;
export type LoggedStatus = (typeof LOGGED_STATUSES)[number];

/** The status each kind most plausibly carries, used when none is asked for. */
export const TYPICAL_STATUS: Readonly<Record<FailureKind, LoggedStatus>> = {
  missing_field: 422,
  out_of_range: 422,
  coverage_not_supported: 422,
  premium_timeout: 503,
  underwriting_unavailable: 503,
  missing_auth: 401,
  rate_limited: 429,
};

export interface FailureSpec extends Omit<MessageParams, 'limit' | 'per'> {
  kind: FailureKind;
  /** Default: the kind's typical status. */
  status?: LoggedStatus;
  /** How many matching requests fail this way (default 1). */
  times?: number;
  /** Only requests to this exact path (e.g. `/v1/hospital-cash/basic/quotes`); default any path. */
  path?: string;
  /** Only requests with this method; default any. */
  method?: string;
  /** Error body shape (default `json`, the assumed contract). */
  format?: ErrorBodyFormat;
  /** Which wording of the kind, 0 to 2 (default 0, the canonical one). */
  variant?: number;
  /** `Retry-After` in seconds; default 1 when the status is 429, none otherwise; null omits it. */
  retryAfterSeconds?: number | null;
}

export type FailureSource = 'header' | 'scripted' | 'random';

export interface InjectedFailure {
  kind: FailureKind;
  source: FailureSource;
  error: ApiError;
}

export interface RandomFailureOptions {
  /** Probability per request of each kind; the rates must add up to at most 1. */
  rates: Partial<Record<FailureKind, number>>;
  /** `typical`: each kind's usual status; `any`: one of the logged statuses drawn at random. */
  statuses: 'typical' | 'any';
  /** Share of random failures answered with a bare-text body instead of the JSON error body. */
  textRate: number;
}

const FORMATS: readonly ErrorBodyFormat[] = ['json', 'text', 'problem'];

/**
 * Decides whether a request is answered with one of the log's failures: a failure asked for in
 * the request header wins, then the scripted queue (first matching entry), then the random rates.
 */
export class FailurePlan {
  private readonly queue: Array<FailureSpec & { remaining: number }> = [];

  constructor(
    private readonly random: () => number,
    private readonly randomOptions: RandomFailureOptions,
  ) {
    const rates = Object.entries(randomOptions.rates);
    for (const [kind, rate] of rates) {
      assertKind(kind);
      if (!(typeof rate === 'number' && rate >= 0 && rate <= 1))
        throw new RangeError(`failure rate of ${kind} must be from 0 to 1`);
    }
    const total = rates.reduce((sum, [, rate]) => sum + (rate ?? 0), 0);
    if (total > 1 + 1e-9) throw new RangeError(`failure rates add up to ${total}, more than 1`);
    if (!(randomOptions.textRate >= 0 && randomOptions.textRate <= 1))
      throw new RangeError('textErrorRate must be from 0 to 1');
  }

  failNext(spec: FailureSpec): void {
    validateSpec(spec);
    const times = spec.times ?? 1;
    if (!Number.isInteger(times) || times < 1) throw new RangeError('times must be a positive integer');
    this.queue.push({ ...spec, remaining: times });
  }

  clear(): void {
    this.queue.length = 0;
  }

  /** Scripted failures not yet used. */
  pending(): number {
    return this.queue.reduce((sum, entry) => sum + entry.remaining, 0);
  }

  take(method: string, path: string, headerSpec: FailureSpec | undefined): InjectedFailure | undefined {
    if (headerSpec) return inject(headerSpec, 'header', path);
    const index = this.queue.findIndex(
      (entry) =>
        (entry.path === undefined || entry.path === path) &&
        (entry.method === undefined || entry.method.toUpperCase() === method),
    );
    const scripted = this.queue[index];
    if (scripted) {
      scripted.remaining -= 1;
      if (scripted.remaining === 0) this.queue.splice(index, 1);
      return inject(scripted, 'scripted', path);
    }
    return this.drawRandom(path);
  }

  /** One draw per request, and more only when a failure fires, so a seed replays the same run. */
  private drawRandom(path: string): InjectedFailure | undefined {
    const { rates, statuses, textRate } = this.randomOptions;
    if (Object.keys(rates).length === 0) return undefined;
    const draw = this.random();
    let cumulative = 0;
    for (const kind of FAILURE_KINDS) {
      cumulative += rates[kind] ?? 0;
      if (draw < cumulative) {
        const status = statuses === 'any' ? pick(LOGGED_STATUSES, this.random()) : TYPICAL_STATUS[kind];
        const variant = Math.floor(this.random() * MESSAGE_VARIANTS);
        const format: ErrorBodyFormat = textRate > 0 && this.random() < textRate ? 'text' : 'json';
        return inject({ kind, status, variant, format }, 'random', path);
      }
    }
    return undefined;
  }
}

/**
 * Reads `X-Simulate-Failure: <kind>[:<status>[:<format>]]`, e.g. `premium_timeout:503` or
 * `missing_field:400:text`.
 */
export function parseFailureHeader(value: string): FailureSpec | ApiError {
  const [kind = '', status, format, ...rest] = value.trim().split(':');
  const problem = (message: string): ApiError => ({ status: 400, code: 'invalid_simulation_header', message });
  if (rest.length > 0) return problem('X-Simulate-Failure must be <kind>[:<status>[:<format>]]');
  if (!(FAILURE_KINDS as readonly string[]).includes(kind)) {
    return problem(`X-Simulate-Failure kind must be one of ${FAILURE_KINDS.join(', ')}`);
  }
  const spec: FailureSpec = { kind: kind as FailureKind };
  if (status !== undefined && status !== '') {
    const code = Number(status);
    if (!(LOGGED_STATUSES as readonly number[]).includes(code)) {
      return problem(`X-Simulate-Failure status must be one of ${LOGGED_STATUSES.join(', ')}`);
    }
    spec.status = code as LoggedStatus;
  }
  if (format !== undefined) {
    if (!(FORMATS as readonly string[]).includes(format))
      return problem(`X-Simulate-Failure format must be one of ${FORMATS.join(', ')}`);
    spec.format = format as ErrorBodyFormat;
  }
  return spec;
}

function inject(spec: FailureSpec, source: FailureSource, path: string): InjectedFailure {
  const status = spec.status ?? TYPICAL_STATUS[spec.kind];
  const message = failureMessage(
    spec.kind,
    { field: spec.field, coverage: spec.coverage ?? coverageOf(path), region: spec.region },
    spec.variant ?? 0,
  );
  const retryAfter = spec.retryAfterSeconds === undefined ? (status === 429 ? 1 : null) : spec.retryAfterSeconds;
  const error: ApiError = { status, code: FAILURE_CODES[spec.kind], message };
  if (spec.kind === 'missing_field') error.field = spec.field ?? 'vehicle.value';
  if (spec.kind === 'out_of_range') error.field = 'driver_age';
  if (retryAfter !== null) error.headers = { 'retry-after': String(retryAfter) };
  if (spec.format) error.format = spec.format;
  return { kind: spec.kind, source, error };
}

/** A coverage type that fits the operation, so "not supported in region" reads plausibly. */
function coverageOf(path: string): string {
  const tier = /^\/v1\/hospital-cash\/(basic|classic|plus)\/quotes$/.exec(path)?.[1];
  if (tier) return `hospital_cash_${tier}`;
  if (path.startsWith('/v1/hospital-cash/')) return 'hospital_cash';
  if (path.startsWith('/v1/travel/')) return 'travel_medical';
  if (path.startsWith('/v1/homeowner/')) return 'homeowner_buildings';
  return 'motor_comprehensive';
}

function validateSpec(spec: FailureSpec): void {
  assertKind(spec.kind);
  if (spec.status !== undefined && !(LOGGED_STATUSES as readonly number[]).includes(spec.status)) {
    throw new RangeError(`status must be one of ${LOGGED_STATUSES.join(', ')}`);
  }
  if (spec.format !== undefined && !FORMATS.includes(spec.format))
    throw new RangeError(`format must be one of ${FORMATS.join(', ')}`);
  if (
    spec.variant !== undefined &&
    !(Number.isInteger(spec.variant) && spec.variant >= 0 && spec.variant < MESSAGE_VARIANTS)
  ) {
    throw new RangeError(`variant must be an integer from 0 to ${MESSAGE_VARIANTS - 1}`);
  }
}

function assertKind(kind: string): asserts kind is FailureKind {
  if (!(FAILURE_KINDS as readonly string[]).includes(kind)) throw new RangeError(`unknown failure kind: ${kind}`);
}

function pick<T>(items: readonly T[], draw: number): T {
  return items[Math.floor(draw * items.length)] as T;
}
