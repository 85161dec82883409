import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Answer, failureAnswer, send } from './answer.js';
import { type DeliveryContext, receiveDelivery, servedFor } from './delivery.js';
import { type HealthCheck, isHealthPath } from './health.js';
import type { ReceiverMetrics } from './metrics.js';

/**
 * Every request the receiver's server takes, answered in one place: `GET /health`, or a delivery,
 * whose answer is sent here (and counted, when the metrics are on). A delivery whose handling
 * failed is said, and answered `unavailable` or `internal_error`.
 */

export interface Answering {
  delivering: DeliveryContext;
  health: HealthCheck;
  metrics: ReceiverMetrics | undefined;
  say(message: string, error: unknown): void;
}

export async function answerRequest(
  answering: Answering,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (isHealthPath(request.url)) return answering.health.answer(request, response);
  const { delivering, metrics } = answering;
  let answer: Answer | undefined;
  try {
    answer = await receiveDelivery(delivering, request);
  } catch (error) {
    answering.say(`delivery: ${String(error)}`, error);
    answer = failureAnswer(error);
  }
  const triggerId = servedFor(delivering, request)?.settings.triggerId ?? '';
  if (answer === undefined) return metrics?.abandoned(triggerId);
  send(request, response, answer);
  metrics?.answered(triggerId, answer);
}
