import {
  AuthenticationError,
  ConflictError,
  type ConnectorError,
  NotFoundError,
  PermissionError,
  ProviderRejectedError,
  ProviderUnavailableError,
  QuotaExhaustedError,
  type QuotaDetails,
  RateLimitedError,
  TimeoutError,
} from '../errors.js';
import { excerpt } from '../excerpt.js';

/** A provider answer that is not a success, as the classifier sees it (already redacted). */
export interface ProviderFailure {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: unknown;
  /** The provider's own message as a short excerpt (`providerMessage`), or a short description of the status. */
  message: string;
  requestId: string | undefined;
  retryAfterMs: number | undefined;
  /** `GET /projects/abc`: method and path, without the query. */
  operation: string;
}

/**
 * The provider's message from its error body, whatever shape it has, as a short excerpt
 * (`EXCERPT_LENGTH` characters, then an ellipsis and the whole length): an error quotes the
 * provider, it does not carry whatever the provider sent. Redact the body first.
 */
export function providerMessage(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    for (const key of ['message', 'error_description', 'detail', 'error', 'title']) {
      const value = record[key];
      if (typeof value === 'string' && value.trim()) return excerpt(value.trim());
      if (
        value &&
        typeof value === 'object' &&
        typeof (value as Record<string, unknown>).message === 'string' &&
        (value as Record<string, string>).message!.trim()
      ) {
        return excerpt((value as Record<string, string>).message!.trim());
      }
    }
  }
  if (typeof body === 'string' && body.trim()) return excerpt(body.trim());
  return `HTTP ${status}`;
}

function fieldsOf(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A short name or unit: trimmed, at most 100 characters. */
function shortText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() && value.length <= 100 ? value.trim() : undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * The quota a 402 names when the provider sends it as fields of its JSON body, at the top or
 * under `error`: `quota` (made snake_case, e.g. `media_minutes`), `unit`, `required` and
 * `available`. A provider that says it only in words is read by its connector's
 * `classifyError`, which passes the details to `QuotaExhaustedError`.
 */
export function quotaDetails(body: unknown): QuotaDetails {
  const top = fieldsOf(body);
  const fields = [top, fieldsOf(top?.error)].find(
    (candidate) => candidate && ['quota', 'required', 'available'].some((key) => key in candidate),
  );
  if (!fields) return {};
  const name = shortText(fields.quota)
    ?.toLowerCase()
    .split(/[^a-z0-9]/)
    .filter(Boolean)
    .join('_');
  const details: QuotaDetails = {
    quota: name || undefined,
    unit: shortText(fields.unit),
    required: finite(fields.required),
    available: finite(fields.available),
  };
  return Object.fromEntries(Object.entries(details).filter(([, value]) => value !== undefined)) as QuotaDetails;
}

/** The error for a failed answer by its status; connectors may classify by message first. */
export function classifyByStatus(failure: ProviderFailure): ConnectorError {
  const { status, message, requestId, body } = failure;
  const options = { status, requestId };
  const text = `${failure.operation}: ${message}`;
  const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  switch (status) {
    case 401:
      return new AuthenticationError(text, options);
    case 402:
      return new QuotaExhaustedError(text, quotaDetails(body), options);
    case 403:
      return new PermissionError(text, options);
    case 404:
      return new NotFoundError(text, options);
    case 408:
      return new TimeoutError(text, options);
    case 409: {
      const state = typeof record.state === 'string' ? record.state : undefined;
      // A resource still being processed may be ready later; any other conflict will not clear by itself.
      return new ConflictError(text, { ...options, state, retryable: state === 'processing' });
    }
    case 429:
      return new RateLimitedError(text, failure.retryAfterMs, options);
  }
  if (status >= 500) return new ProviderUnavailableError(text, { ...options, retryAfterMs: failure.retryAfterMs });
  const field = typeof record.field === 'string' ? record.field : undefined;
  return new ProviderRejectedError(text, { ...options, field });
}
