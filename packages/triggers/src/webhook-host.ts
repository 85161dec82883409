import type { Connector, InputIssue, Trigger } from '@plugboard/sdk';
import type { TriggerCall, TriggerCalls } from '@plugboard/sdk/host';
import type { TriggerWebhookSettings } from './config-parts.js';
import type { TriggerSettings } from './config.js';
import { TriggerConfigError } from './errors.js';
import { type ExecutorHost, executorFor } from './run-start.js';

/**
 * What the receiver needs of the host for its provider webhooks: each trigger's declaration (its
 * signature and records are the connector's code, run here) and the lifecycle calls, run through
 * the SDK's executor on the connection the trigger names, as a run is.
 */

export interface WebhookHost {
  /** The declaration the webhook names; found when the receiver is made. */
  triggerOf(webhook: TriggerWebhookSettings): Trigger;
  call<C extends TriggerCall>(
    webhook: TriggerWebhookSettings,
    environment: 'sandbox' | 'production',
    call: C,
    input: TriggerCalls[C]['input'],
    /** The subscription's secret, hidden from the call's logs and errors (a subscribe's offered one always is). */
    secret?: string,
  ): Promise<TriggerCalls[C]['answer']>;
}

function connectorsOf(host: ExecutorHost): Map<string, Connector> {
  const listed = host.connectors ?? [];
  const connectors = listed instanceof Map ? [...listed.values()] : [...(listed as readonly Connector[])];
  return new Map(connectors.map((connector) => [connector.key, connector]));
}

/** The problem of one webhook trigger's names, or undefined when its connector declares its trigger. */
function webhookProblem(
  webhook: TriggerWebhookSettings,
  connectors: ReadonlyMap<string, Connector> | undefined,
): InputIssue | undefined {
  if (!connectors)
    return { path: 'webhook', message: 'this receiver was given no connectors to subscribe with (webhooks option)' };
  const connector = connectors.get(webhook.connector);
  if (!connector) return { path: 'webhook.connector', message: `no connector ${webhook.connector} is loaded` };
  if (!connector.trigger(webhook.trigger))
    return {
      path: 'webhook.trigger',
      message: `connector ${webhook.connector} declares no trigger ${webhook.trigger}`,
    };
  return undefined;
}

/**
 * The host of the configuration's webhook triggers, or a `TriggerConfigError` naming each one whose
 * connector is not loaded or declares no such trigger; undefined without a host (then no trigger may name one).
 */
export function webhookHost(
  triggers: readonly TriggerSettings[],
  host: ExecutorHost | undefined,
): WebhookHost | undefined {
  const connectors = host ? connectorsOf(host) : undefined;
  const issues = triggers.flatMap((settings, index) => {
    const problem = settings.webhook && webhookProblem(settings.webhook, connectors);
    return problem ? [{ ...problem, path: `triggers[${index}].${problem.path}` }] : [];
  });
  if (issues.length > 0) throw new TriggerConfigError(issues);
  if (!host || !connectors) return undefined;
  return {
    triggerOf: (webhook) => connectors.get(webhook.connector)!.trigger(webhook.trigger)!,
    call: (webhook, environment, call, input, secret) =>
      executorFor(host, webhook.connection).callTrigger({
        connectorKey: webhook.connector,
        trigger: webhook.trigger,
        call,
        connectionId: webhook.connection.id,
        environment,
        input,
        ...(secret === undefined ? {} : { secrets: [secret] }),
      }),
  };
}
