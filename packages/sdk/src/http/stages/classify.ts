import type { Clock } from '../../clock.js';
import type { ConnectorError } from '../../errors.js';
import type { Redactor } from '../../secrets.js';
import { classifyByStatus, type ProviderFailure, providerMessage } from '../classify.js';
import { parseRetryAfter, toHeaders } from '../headers.js';
import { requestIdOf } from './redaction.js';
import { scopeOf } from './run-scope.js';
import type { Answer, Send } from './stage.js';

/** What the classification stage uses: the connection's redactor and the connector's own reading of a failure. */
export interface ClassificationOptions {
  redactor: Redactor;
  /** The connector's `classifyError`, asked before the status decides. */
  classifyError: ((failure: ProviderFailure) => ConnectorError | undefined) | undefined;
  /** The transport's clock: an HTTP-date `Retry-After` is read against it. */
  clock: Clock;
}

/**
 * An answer that is not a success becomes the typed `ConnectorError` its status (or the
 * connector's `classifyError`) names, built from the redacted body: the stages above see
 * either a success or an error. The run (`RunScope.heard`) is told of every answer first.
 */
export function classification(options: ClassificationOptions, next: Send): Send {
  return async (call) => {
    const answer = await next(call);
    scopeOf(call).heard(answer);
    if (answer.status < 200 || answer.status >= 300) throw failure(options, answer, call.operation);
    return answer;
  };
}

function failure(
  { redactor, classifyError, clock }: ClassificationOptions,
  answer: Answer,
  operation: string,
): ConnectorError {
  let body: unknown = answer.text;
  try {
    body = answer.text ? JSON.parse(answer.text) : undefined;
  } catch {
    // A bare-text error body stays text.
  }
  const redactedBody = redactor.redact(body);
  const failed: ProviderFailure = {
    status: answer.status,
    headers: toHeaders(answer.headers),
    body: redactedBody,
    message: redactor.redactString(providerMessage(answer.status, redactedBody)),
    requestId: requestIdOf(redactor, answer.headers, body),
    retryAfterMs: parseRetryAfter(answer.headers.get('retry-after'), clock.now()),
    operation,
  };
  return classifyError?.(failed) ?? classifyByStatus(failed);
}
