import * as sdk from '@plugboard/sdk';
import { ConnectorError, excerpt } from '@plugboard/sdk';
import type { Redactor } from '@plugboard/sdk/host';

/**
 * A failure as it crosses the channel between a plugin's process and the host: plain data,
 * rebuilt in the host as the SDK's error class of the same name (the host's classes, so
 * `instanceof` and exit codes work), with every string passed through the host's redactor.
 */
export interface WireError {
  name: string;
  code: string;
  message: string;
  retryable: boolean;
  platformStatus: number;
  status?: number;
  requestId?: string;
  /** The class's own fields: `issues`, `retryAfterMs`, `quota`, `digest` ... */
  fields: Record<string, unknown>;
}

/** The fields of the SDK's error classes that travel; anything else a plugin sets stays behind. */
const FIELDS = [
  'issues',
  'retryAfterMs',
  'quota',
  'unit',
  'required',
  'available',
  'field',
  'state',
  'addressClass',
  'embedding',
  'digest',
  'shortDigest',
  'reason',
  'approvalId',
  'action',
  'connector',
  'stored',
  'known',
  'from',
  'to',
] as const;

const MAX_MESSAGE = 2000;

export function toWire(error: unknown): WireError {
  if (
    error instanceof Error &&
    typeof (error as ConnectorError).code === 'string' &&
    typeof (error as ConnectorError).retryable === 'boolean'
  ) {
    const failure = error as ConnectorError & Record<string, unknown>;
    const fields: Record<string, unknown> = {};
    for (const field of FIELDS) if (failure[field] !== undefined) fields[field] = failure[field];
    return {
      name: failure.name,
      code: failure.code,
      message: failure.message,
      retryable: failure.retryable,
      platformStatus: failure.platformStatus,
      ...(failure.status === undefined ? {} : { status: failure.status }),
      ...(failure.requestId === undefined ? {} : { requestId: failure.requestId }),
      fields,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    name: 'ConnectorError',
    code: 'connector_failed',
    message,
    retryable: false,
    platformStatus: 500,
    fields: {},
  };
}

/** The SDK's error classes by name: a plugin's failure comes back as one of them, or as a plain ConnectorError. */
const CLASSES = new Map<string, { prototype: ConnectorError }>(
  Object.entries(sdk).filter(
    ([, value]) =>
      typeof value === 'function' && (value === ConnectorError || value.prototype instanceof ConnectorError),
  ) as Array<[string, { prototype: ConnectorError }]>,
);

/** A string from the plugin, redacted whole (a cut could split a secret), then cut to size. */
function text(value: unknown, fallback: string, redactor: Redactor, limit = MAX_MESSAGE): string {
  return typeof value === 'string' ? excerpt(redactor.redactString(value), limit) : fallback;
}

/** Rebuilds a failure the plugin's process sent; whatever it holds is checked, cut to size and redacted. */
export function fromWire(data: unknown, redactor: Redactor, plugin: string): ConnectorError {
  const wire = (typeof data === 'object' && data !== null ? data : {}) as Partial<WireError>;
  const platformStatus =
    Number.isInteger(wire.platformStatus) && wire.platformStatus! >= 400 && wire.platformStatus! < 600
      ? wire.platformStatus!
      : 500;
  const error = new ConnectorError(text(wire.message, `${plugin}: the plugin failed and sent no message`, redactor), {
    code: text(wire.code, 'connector_failed', redactor, 100),
    retryable: wire.retryable === true,
    platformStatus,
    ...(Number.isInteger(wire.status) ? { status: wire.status } : {}),
    ...(typeof wire.requestId === 'string' ? { requestId: text(wire.requestId, '', redactor, 200) } : {}),
  });
  const name = typeof wire.name === 'string' ? wire.name : 'ConnectorError';
  const known = CLASSES.get(name);
  if (known) {
    Object.setPrototypeOf(error, known.prototype);
    error.name = name;
  }
  const fields =
    typeof wire.fields === 'object' && wire.fields !== null ? (wire.fields as Record<string, unknown>) : {};
  for (const field of FIELDS) {
    if (fields[field] !== undefined)
      Object.defineProperty(error, field, { value: redactor.redact(fields[field]), enumerable: true });
  }
  return error;
}
