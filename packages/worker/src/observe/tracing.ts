import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import {
  type Attributes,
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { ConnectorError } from '@plugboard/sdk';
import type { RunJob } from '../queue/jobs.js';
import { statusLabel } from './metrics.js';

/**
 * Traces through `@opentelemetry/api` only: a no-op unless the host registers an SDK. The
 * submitter's context travels in the job (W3C `traceparent` through the API's propagation), a
 * run's span joins it, and each exchange with a provider is a span inside the run's. Attributes
 * are the run's names and codes and the SDK's redacted messages: never a credential nor an input.
 */

const TRACER = '@plugboard/worker';
const EXCHANGE_END = 'plugboard:http:exchange:end';
/** The carrier's fields a job may bring, each cut to this length: what Redis held is not trusted. */
const CARRIED = ['traceparent', 'tracestate'] as const;
const CARRIED_LENGTH = 512;

/** The active context as the job carries it, or nothing when no propagator wrote any. */
export function traceCarrier(): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

function carried(trace: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (typeof trace !== 'object' || trace === null) return fields;
  for (const name of CARRIED) {
    const value = (trace as Record<string, unknown>)[name];
    if (typeof value === 'string' && value.length <= CARRIED_LENGTH) fields[name] = value;
  }
  return fields;
}

/** Runs `body` inside the run's span, joined to the submitter's trace when the job carries it. */
export async function inRunSpan<T>(data: RunJob, body: () => Promise<T>): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, carried(data.trace));
  const span = trace.getTracer(TRACER).startSpan(
    'plugboard.run',
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'plugboard.run.id': data.runId,
        'plugboard.run.attempt': data.attempt,
        'plugboard.connector': data.connector,
        'plugboard.action': data.action,
        'plugboard.connection.id': data.connection.id,
        'plugboard.environment': data.environment,
      },
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), body);
  } catch (error) {
    const code = error instanceof ConnectorError ? error.code : 'internal_error';
    span.setAttribute('plugboard.error.code', code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: code });
    throw error;
  } finally {
    span.end();
  }
}

/** A span for one exchange, made when it ended (the message says how long it took), inside the active run's. */
function exchangeSpan(message: unknown): void {
  const { connector, action, operation, origin, status, code, durationMs } = message as Record<string, unknown>;
  const attributes: Attributes = { 'http.response.status_code': statusLabel(status) };
  for (const [name, value] of Object.entries({ connector, action, operation, origin, code }))
    if (typeof value === 'string') attributes[`plugboard.${name}`] = value;
  const took = typeof durationMs === 'number' && Number.isFinite(durationMs) && durationMs > 0 ? durationMs : 0;
  const span = trace
    .getTracer(TRACER)
    .startSpan('plugboard.http', { kind: SpanKind.CLIENT, startTime: Date.now() - took, attributes }, context.active());
  if (typeof code === 'string') span.setStatus({ code: SpanStatusCode.ERROR, message: code });
  span.end();
}

let tracing = 0;

/** Makes a span of each exchange the process has with a provider, until every worker that asked called its answer. */
export function traceExchanges(): () => void {
  // Once per process, however many workers it runs: each exchange is one span.
  if (tracing++ === 0) subscribe(EXCHANGE_END, exchangeSpan);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--tracing === 0) unsubscribe(EXCHANGE_END, exchangeSpan);
  };
}
