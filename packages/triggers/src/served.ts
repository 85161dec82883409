import type { LogSink } from '@plugboard/sdk';
import type { Clock } from '@plugboard/sdk/host';
import { Redactor } from '@plugboard/sdk/host';
import type { TriggerSettings } from './config.js';
import { platformJudge, type ServedTrigger } from './delivery-judge.js';
import { earlyRefusals } from './early-refusals.js';
import { deliveryRate } from './rate.js';
import { resolveSecrets } from './secrets.js';
import { judgeWebhook } from './webhook-check.js';
import type { WebhookHost } from './webhook-host.js';
import type { WebhookLifecycle } from './webhook-lifecycle.js';

/**
 * Each configured trigger as the receiver serves it, by publicId: its rate window, the window
 * of its early refusals' receipts, and how its deliveries are judged and its secrets hidden. A rule 13 trigger's secrets come from the
 * environment now; a provider webhook's from its kept subscription, whenever it has one.
 */

export interface ServedOptions {
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  log: LogSink;
  host: WebhookHost | undefined;
  lifecycle: WebhookLifecycle;
}

/** A redactor of the subscription's secret as it is now: made again only when the secret changes. */
function subscriptionRedactor(secretOf: () => string | undefined): () => Redactor {
  let made: { secret: string | undefined; redactor: Redactor } | undefined;
  return () => {
    const secret = secretOf();
    if (made === undefined || made.secret !== secret)
      made = { secret, redactor: new Redactor(secret === undefined ? [] : [secret]) };
    return made.redactor;
  };
}

function webhookServed(
  settings: TriggerSettings,
  options: ServedOptions,
): Omit<ServedTrigger, 'rate' | 'earlyRefusals'> {
  const declared = options.host!.triggerOf(settings.webhook!);
  const secretOf = () => options.lifecycle.secret(settings.triggerId);
  return {
    settings,
    eventIdHeader: declared.eventIdHeader?.toLowerCase() ?? 'webhook-id',
    redactor: subscriptionRedactor(secretOf),
    judge: (headers, body, now) => judgeWebhook(declared, secretOf(), headers, body, now),
  };
}

export function servedTriggers(
  triggers: readonly TriggerSettings[],
  options: ServedOptions,
): Map<string, ServedTrigger> {
  const secrets = resolveSecrets(triggers, options.env);
  return new Map(
    triggers.map((settings) => {
      const kept = secrets.get(settings.triggerId);
      const judged = settings.webhook
        ? webhookServed(settings, options)
        : {
            settings,
            eventIdHeader: 'x-platform-event-id',
            redactor: () => kept!.redactor,
            judge: platformJudge(settings, kept!),
          };
      const rate = deliveryRate(settings.maxDeliveriesPerMinute, options.clock);
      return [
        settings.publicId,
        { ...judged, rate, earlyRefusals: earlyRefusals(settings, options.clock, options.log) },
      ];
    }),
  );
}
