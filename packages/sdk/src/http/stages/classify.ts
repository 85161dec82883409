import type { ConnectorError } from '../../errors.js';
import { classifyByStatus, type ProviderFailure, providerMessage } from '../classify.js';
import { parseRetryAfter, toHeaders } from '../headers.js';
import type { ClientSettings, PipelineSettings } from '../settings.js';
import { requestIdOf } from './redaction.js';
import type { Answer, Send } from './stage.js';

/**
 * An answer that is not a success becomes the typed `ConnectorError` its status (or the
 * connector's `classifyError`) names, built from the redacted body: the stages above see
 * either a success or an error. `settings.heard` is told of every answer first (the client keeps the
 * latest one's request id).
 */
export function classification(settings: PipelineSettings, next: Send): Send {
  const { heard } = settings;
  return async (call) => {
    const answer = await next(call);
    heard(answer);
    if (answer.status < 200 || answer.status >= 300) throw failure(settings, answer, call.operation);
    return answer;
  };
}

function failure(
  { redactor, connector, transport }: ClientSettings,
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
    retryAfterMs: parseRetryAfter(answer.headers.get('retry-after'), transport.clock.now()),
    operation,
  };
  return connector.classifyError?.(failed) ?? classifyByStatus(failed);
}
