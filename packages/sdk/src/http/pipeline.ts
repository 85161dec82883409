import { transmit } from './exchange.js';
import type { ClientSettings } from './settings.js';
import { budget } from './stages/budget.js';
import { classification } from './stages/classify.js';
import { credential } from './stages/credential.js';
import { networkPolicy } from './stages/network.js';
import { redaction } from './stages/redaction.js';
import { redirect } from './stages/redirect.js';
import { retry } from './stages/retry.js';
import type { Answer, Send, StageRun } from './stages/stage.js';
import { timeout } from './stages/timeout.js';

/**
 * One run's `ctx.http` pipeline, composed once per run, in the order a request passes
 * (each stage wraps the ones below it, as undici's interceptors wrap a dispatch):
 *
 *   redaction       what leaves is redacted and typed; request start and end are published
 *   retry           transient failures of reads and safe writes, backoff on the clock
 *   classification  a failed status becomes its typed ConnectorError; the client hears of every answer
 *   host stages     `createTransport({ stages })`, outermost first: once per attempt
 *   budget          the rate budget's turn, its pauses, and the write gate carried down
 *   timeout         one timer for the whole exchange, redirects and body included
 *   redirect        each hop through the stages below again
 *   credential      the connection's scheme (header, query, Basic, signer, OAuth2 token), to the base URL's origin only
 *   network policy  the address each hop goes to
 *   transport       one exchange: undici, fetch or Node's http
 */
export function pipeline(settings: ClientSettings, latest: (answer: Answer) => void): Send {
  const { transport, connector, action, connectionId, environment } = settings;
  const run: StageRun = {
    connector: connector.key,
    action: action.key,
    connectionId,
    environment,
    clock: transport.clock,
  };
  const outermostFirst: ((next: Send) => Send)[] = [
    redaction(settings),
    retry(settings),
    classification(settings, latest),
    ...transport.stages.map((stage) => (next: Send) => stage(next, run)),
    budget(settings),
    timeout(settings),
    redirect(settings),
    credential(settings),
    networkPolicy(settings),
  ];
  let send = transmit(settings);
  for (let index = outermostFirst.length - 1; index >= 0; index -= 1) send = outermostFirst[index]!(send);
  return send;
}
