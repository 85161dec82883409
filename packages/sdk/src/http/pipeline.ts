import { transmit } from './exchange.js';
import type { PipelineSettings } from './settings.js';
import { budget } from './stages/budget.js';
import { classification } from './stages/classify.js';
import { credential } from './stages/credential.js';
import { networkPolicy } from './stages/network.js';
import { redaction } from './stages/redaction.js';
import { redirect } from './stages/redirect.js';
import { retry } from './stages/retry.js';
import type { Send, StageRun } from './stages/stage.js';
import { timeout } from './stages/timeout.js';
import { tokens } from './stages/tokens.js';

/**
 * One run's `ctx.http` pipeline, composed once per run, in the order a request passes
 * (each stage wraps the ones below it, as undici's interceptors wrap a dispatch):
 *
 *   redaction       what leaves is redacted and typed; request start and end are published
 *   retry           transient failures of reads and safe writes, backoff on the clock
 *   classification  a failed status becomes its typed ConnectorError; the client hears of every answer
 *   host stages     `createTransport({ stages })`, outermost first: once per attempt
 *   tokens          the OAuth2 access token of each attempt; a 401 refreshes it and goes once more
 *   budget          the rate budget's turn, its pauses, and the write gate carried down
 *   timeout         one timer for the whole exchange, redirects and body included
 *   redirect        each hop through the stages below again
 *   credential      the connection's scheme (header, query, Basic, signer, OAuth2 token), to the base URL's origin only
 *   network policy  the address each hop goes to
 *   transport       one exchange: undici, fetch or Node's http
 */
export function pipeline(settings: PipelineSettings): Send {
  let send = transmit(settings);
  for (let index = BELOW_HOST.length - 1; index >= 0; index -= 1) send = BELOW_HOST[index]!(settings, send);
  const hosts = settings.transport.stages;
  if (hosts.length > 0) {
    const { connector, action, connectionId, environment, transport } = settings;
    const run: StageRun = {
      connector: connector.key,
      action: action.key,
      connectionId,
      environment,
      clock: transport.clock,
    };
    for (let index = hosts.length - 1; index >= 0; index -= 1) send = hosts[index]!(send, run);
  }
  for (let index = ABOVE_HOST.length - 1; index >= 0; index -= 1) send = ABOVE_HOST[index]!(settings, send);
  return send;
}

/** A stage of the SDK's own: made once per run from its settings, around the stage below. */
type OwnStage = (settings: PipelineSettings, next: Send) => Send;

const ABOVE_HOST: readonly OwnStage[] = [redaction, retry, classification];
const BELOW_HOST: readonly OwnStage[] = [tokens, budget, timeout, redirect, credential, networkPolicy];
