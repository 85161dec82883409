/**
 * The error family every connector failure belongs to. Each error has a stable
 * `code`, says whether trying again may help, and carries the provider's HTTP
 * status and request id so a user can find the call in the provider's console.
 */

/** The platform's Error shape (spec: Resources, Error; Errors, rules 1-2). */
export interface PlatformError {
  error: 'request_failed' | 'internal_server_error';
  message: string;
  statusCode: number;
  requestId: string;
  path: string;
  code?: string;
}

/** How a `ConnectorError` is made: its code, whether retrying may help, the provider's status and request id, and the cause. */
export interface ConnectorErrorOptions {
  /** HTTP status the provider answered with, when there was an answer. */
  status?: number | undefined;
  /** The provider's request id, from a header or the error body. */
  requestId?: string | undefined;
  /** A more precise stable code than the class's own, e.g. `missing_authorization`. */
  code?: string | undefined;
  cause?: unknown;
}

/** The base of every typed failure of a run: a stable `code`, `retryable`, the provider's status and request id, in the platform's Error shape. */
export class ConnectorError extends Error {
  /** Stable, machine-readable reason. */
  readonly code: string;
  /** True when the same call may succeed if tried again later. */
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  /** Status the platform answers with when it reports this error. */
  readonly platformStatus: number;

  /**
   * A failure of the connector's own, with its stable code.
   * @example new ConnectorError('the quotes are in different currencies', { code: 'quotes_not_comparable', retryable: false, platformStatus: 502 })
   */
  constructor(
    message: string,
    options: ConnectorErrorOptions & { code: string; retryable: boolean; platformStatus: number },
  ) {
    refuseMalformed(options);
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.retryable = options.retryable;
    this.status = options.status;
    this.requestId = options.requestId;
    this.platformStatus = options.platformStatus;
  }

  /** The platform's Error shape for this failure, answered for `path`. */
  toPlatformError(path: string, requestId?: string): PlatformError {
    // A failure read from a successful answer (one that does not match its schema) is not a 2xx.
    const statusCode = this.status !== undefined && this.status >= 400 ? this.status : this.platformStatus;
    return {
      error: statusCode >= 500 ? 'internal_server_error' : 'request_failed',
      message: this.message,
      statusCode,
      requestId: requestId ?? this.requestId ?? 'unknown',
      path,
      code: this.code,
    };
  }
}

/** What a ConnectorError of its own must be given, and the type of each. */
const REQUIRED = [
  ['code', 'string'],
  ['retryable', 'boolean'],
  ['platformStatus', 'number'],
] as const;

/** A plain JavaScript caller may still write the removed positional form, which would make a nonsense error. */
function refuseMalformed(options: unknown): void {
  for (const [field, type] of REQUIRED)
    if (typeof (options as Record<string, unknown> | null | undefined)?.[field] !== type)
      throw new TypeError(
        `new ConnectorError(message, { code, retryable, platformStatus }) needs options.${field}, a ${type} (the positional form was removed)`,
      );
}

/** One problem of an input or of settings: the field's path and what is wrong. */
export interface InputIssue {
  /** Dotted path of the field, e.g. `applicant.date_of_birth` or `add_media.0.url`. */
  path: string;
  message: string;
}

/** The input of an action, or a connection's settings, are not valid. Never retried. */
export class InvalidInputError extends ConnectorError {
  readonly issues: readonly InputIssue[];

  constructor(subject: string, issues: readonly InputIssue[], options: ConnectorErrorOptions = {}) {
    const list = issues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ');
    super(`${subject}: ${list}`, { ...options, code: 'invalid_input', retryable: false, platformStatus: 400 });
    this.issues = issues;
  }
}

/** The connection itself is unusable: a secret-like setting, no base URL, no credential. */
export class ConnectionConfigError extends ConnectorError {
  constructor(message: string) {
    super(message, { code: 'invalid_connection', retryable: false, platformStatus: 400 });
  }
}

/** The provider answered 400 or 422 with its own reason. */
export class ProviderRejectedError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'provider_rejected';

  /** Dotted path of the field the provider named, when it named one. */
  readonly field: string | undefined;

  constructor(message: string, options: ConnectorErrorOptions & { field?: string | undefined } = {}) {
    super(message, { ...options, code: options.code ?? new.target.code, retryable: false, platformStatus: 400 });
    this.field = options.field;
  }
}

/** 401: the credential is missing, wrong, expired or revoked. */
export class AuthenticationError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'authentication_failed';

  constructor(message: string, options: ConnectorErrorOptions = {}) {
    super(message, { ...options, code: options.code ?? new.target.code, retryable: false, platformStatus: 401 });
  }
}

/**
 * The credential has expired and cannot be renewed here (an access token past its expiry, a
 * refresh refused): a person must sign in again or replace it. Never retried.
 */
export class CredentialsExpiredError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'credentials_expired';

  constructor(message: string, options: ConnectorErrorOptions = {}) {
    super(message, { ...options, code: options.code ?? new.target.code, retryable: false, platformStatus: 401 });
  }
}

/** 403: the credential is valid but may not do this. */
export class PermissionError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'permission_denied';

  constructor(message: string, options: ConnectorErrorOptions = {}) {
    super(message, { ...options, code: options.code ?? new.target.code, retryable: false, platformStatus: 403 });
  }
}

/** 404: nothing with that id is visible to this credential. */
export class NotFoundError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'not_found';

  constructor(message: string, options: ConnectorErrorOptions = {}) {
    super(message, { ...options, code: options.code ?? new.target.code, retryable: false, platformStatus: 404 });
  }
}

/** 409: the resource is in a state that forbids the call (e.g. a publish still processing). */
export class ConflictError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'conflict';

  /** The provider's name for the state, when it gave one. */
  readonly state: string | undefined;

  constructor(
    message: string,
    options: ConnectorErrorOptions & { state?: string | undefined; retryable?: boolean } = {},
  ) {
    super(message, {
      ...options,
      code: options.code ?? new.target.code,
      retryable: options.retryable ?? false,
      platformStatus: 409,
    });
    this.state = options.state;
  }
}

/** What a provider said of an exhausted quota (`QuotaExhaustedError`): its name, unit, and the amounts required and available. */
export interface QuotaDetails {
  /** snake_case name of the quota, e.g. `media_minutes` or `ai_credits`, when the provider named it. */
  quota?: string | undefined;
  unit?: string | undefined;
  required?: number | undefined;
  available?: number | undefined;
}

/** 402: a plan quota ran out. Retrying cannot help until someone tops it up. */
export class QuotaExhaustedError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'quota_exhausted';

  readonly quota: string | undefined;
  readonly unit: string | undefined;
  readonly required: number | undefined;
  readonly available: number | undefined;

  constructor(message: string, details: QuotaDetails = {}, options: ConnectorErrorOptions = {}) {
    super(message, { ...options, code: options.code ?? new.target.code, retryable: false, platformStatus: 402 });
    this.quota = details.quota;
    this.unit = details.unit;
    this.required = details.required;
    this.available = details.available;
  }
}

/** 429, or a budget paused for longer than the action may wait. */
export class RateLimitedError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'rate_limited';

  /** How long the provider asked to wait, in milliseconds, when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, retryAfterMs: number | undefined, options: ConnectorErrorOptions = {}) {
    super(message, { ...options, code: options.code ?? new.target.code, retryable: true, platformStatus: 429 });
    this.retryAfterMs = retryAfterMs;
  }

  override toPlatformError(path: string, requestId?: string): PlatformError {
    return { ...super.toPlatformError(path, requestId), statusCode: 429 };
  }
}

/** 5xx: the provider failed; trying again later may work. */
export class ProviderUnavailableError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'provider_unavailable';

  /** How long the provider asked to wait (`Retry-After`), in milliseconds, when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: ConnectorErrorOptions & { retryAfterMs?: number | undefined } = {}) {
    super(message, { ...options, code: options.code ?? new.target.code, retryable: true, platformStatus: 503 });
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** The provider did not answer in time. */
export class TimeoutError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'timeout';

  constructor(message: string, options: ConnectorErrorOptions & { retryable?: boolean } = {}) {
    super(message, {
      ...options,
      code: options.code ?? new.target.code,
      retryable: options.retryable ?? true,
      platformStatus: 504,
    });
  }
}

/** The connection failed or broke before a whole answer arrived; not retryable when the host's name does not resolve. */
export class NetworkError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'network_error';

  constructor(message: string, options: ConnectorErrorOptions & { retryable?: boolean } = {}) {
    super(message, {
      ...options,
      code: options.code ?? new.target.code,
      retryable: options.retryable ?? true,
      platformStatus: 502,
    });
  }
}

/** The provider answered, but not in the shape the action declares. */
export class SchemaMismatchError extends ConnectorError {
  readonly action: string;
  readonly issues: readonly InputIssue[];

  constructor(action: string, issues: readonly InputIssue[], options: ConnectorErrorOptions = {}) {
    const list = issues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ');
    const where = options.requestId ? ` (request ${options.requestId})` : '';
    super(`${action}: the provider's answer does not match the declared schema${where}: ${list}`, {
      ...options,
      code: 'schema_mismatch',
      retryable: false,
      platformStatus: 502,
    });
    this.action = action;
    this.issues = issues;
  }
}

/** The caller aborted the run (its AbortSignal fired). */
export class CancelledError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'cancelled';

  constructor(message = 'the run was cancelled', options: ConnectorErrorOptions = {}) {
    super(message, { ...options, code: options.code ?? new.target.code, retryable: false, platformStatus: 499 });
  }
}

/**
 * The transport's network policy refuses the address a request would connect to (a loopback,
 * private, link-local or cloud metadata address, say, or one carried in a NAT64 or 6to4
 * address): nothing was sent. Never retried; the message names the host and the class of the
 * address, not the address a name resolved to.
 */
export class AddressRefusedError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'address_refused';

  /** `loopback`, `private`, `link-local`, `unique-local`, `metadata`, `unspecified`, `broadcast`, `multicast` or `reserved`. */
  readonly addressClass: string;
  /** How an IPv6 address carried the IPv4 address refused (`nat64`, `6to4`, `ipv4-mapped` ...), when it did. */
  readonly embedding: string | undefined;

  constructor(
    host: string,
    refusal: { class: string; embedding?: string | undefined; reason: string },
    environment: string,
    resolved: boolean,
    options: ConnectorErrorOptions = {},
  ) {
    super(
      `the host ${host} ${resolved ? 'resolves to' : 'is'} ${refusal.reason}, which ${environment} runs may not connect to; nothing was sent (a host may allow a range: createTransport({ network: { allow } }))`,
      { ...options, code: options.code ?? new.target.code, retryable: false, platformStatus: 403 },
    );
    this.addressClass = refusal.class;
    this.embedding = refusal.embedding;
  }
}

/**
 * A paged read going round in circles: a page asked for a second time in the run (a cursor,
 * offset or URL seen before), or a page with the same records as the one before it. Never
 * retried: the provider would answer the same.
 */
export class PagingLoopError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'paging_loop';

  readonly action: string;
  /** The page (1 for the first) at which the loop was caught. */
  readonly page: number;

  constructor(action: string, page: number, reason: string, options: ConnectorErrorOptions = {}) {
    const where = options.requestId ? ` (request ${options.requestId})` : '';
    super(`${action}: page ${page} ${reason}; stopping rather than looping${where}`, {
      ...options,
      code: options.code ?? new.target.code,
      retryable: false,
      platformStatus: 502,
    });
    this.action = action;
    this.page = page;
  }
}

/**
 * The stored checkpoint was written by a newer version of the connector than the one running:
 * its shape is unknown here, so the run stops rather than reading from the start. Never retried.
 */
export class CheckpointTooNewError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'checkpoint_too_new';

  readonly connector: string;
  readonly action: string;
  /** The version of the stored checkpoint. */
  readonly stored: number;
  /** The newest checkpoint version this connector knows. */
  readonly known: number;

  constructor(connector: string, action: string, stored: number, known: number, options: ConnectorErrorOptions = {}) {
    super(
      `${connector} ${action}: the stored checkpoint is version ${stored}, newer than version ${known}, the newest this connector knows; run the connector version that wrote it, or reset the stream's checkpoint to read from the start`,
      { ...options, code: options.code ?? new.target.code, retryable: false, platformStatus: 409 },
    );
    this.connector = connector;
    this.action = action;
    this.stored = stored;
    this.known = known;
  }
}

/**
 * Migrating a stored checkpoint to the connector's version failed: a migration threw, or gave
 * a value the current checkpoint schema refuses. Nothing was sent or committed. Never retried.
 */
export class CheckpointMigrationError extends ConnectorError {
  /** The family's general code, which a more precise one (`options.code`) still answers to. */
  static readonly code = 'checkpoint_migration_failed';

  readonly connector: string;
  readonly action: string;
  readonly from: number;
  readonly to: number;
  readonly issues: readonly InputIssue[];

  constructor(
    connector: string,
    action: string,
    versions: { from: number; to: number },
    issues: readonly InputIssue[],
    options: ConnectorErrorOptions = {},
  ) {
    const list = issues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`).join('; ');
    super(
      `${connector} ${action}: migrating the checkpoint from version ${versions.from} to ${versions.to} failed: ${list}`,
      { ...options, code: options.code ?? new.target.code, retryable: false, platformStatus: 500 },
    );
    this.connector = connector;
    this.action = action;
    this.from = versions.from;
    this.to = versions.to;
    this.issues = issues;
  }
}

/**
 * The codes an error answers to: its own, then the general code of each family it belongs to
 * (`credits_exhausted`, then `quota_exhausted`, for a 402 a connector names more precisely), so a
 * test or a caller may expect either.
 * @example errorCodes(new QuotaExhaustedError('...', {}, { code: 'credits_exhausted' })) // ['credits_exhausted', 'quota_exhausted']
 */
export function errorCodes(error: ConnectorError): string[] {
  const codes = [error.code];
  for (let type: unknown = error.constructor; type && type !== ConnectorError; type = Object.getPrototypeOf(type)) {
    const general = Object.hasOwn(type as object, 'code') ? (type as { code: unknown }).code : undefined;
    if (typeof general === 'string' && !codes.includes(general)) codes.push(general);
  }
  return codes;
}
