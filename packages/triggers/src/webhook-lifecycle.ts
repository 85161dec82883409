import { randomBytes } from 'node:crypto';
import { ConnectorError, excerpt, type LogSink } from '@plugboard/sdk';
import type { Clock, Timer } from '@plugboard/sdk/host';
import type { TriggerSettings } from './config.js';
import type { KeptSubscription, SubscriptionStore } from './subscription-store.js';
import type { WebhookHost } from './webhook-host.js';

/**
 * The provider subscriptions of the webhook triggers, kept across restarts. When the receiver
 * listens, a kept subscription whose trigger left the configuration (or now names another
 * connector, trigger, connection, environment or delivery URL) is unsubscribed and forgotten;
 * each webhook trigger without one is subscribed with the receiver's delivery URL and a new
 * secret. A subscription that expires is renewed on the receiver's clock once 80% of the life it
 * had left has passed (a trigger without `renew` is subscribed again when it expires); one the
 * provider no longer knows (404, 410) is replaced by a new subscription. A call that fails is
 * logged with its typed code and tried again after 1 s, 2 s, 4 s ... up to 5 minutes.
 * Closing cancels the timers and leaves the subscriptions at the provider: a restart keeps them.
 */

/** The share of its remaining life after which a subscription is renewed. */
export const RENEW_AT_SHARE = 0.8;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 5 * 60_000;

export interface WebhookLifecycle {
  /** Ends what left the configuration, subscribes what is not kept, sets the renewals' timers. */
  start(urlOf: (settings: TriggerSettings) => string): Promise<void>;
  /** The secret the trigger's deliveries are verified with; undefined while it is not subscribed. */
  secret(triggerId: string): string | undefined;
  /** Resolves once no call is in flight (a failed one's next try is set by then). */
  settled(): Promise<void>;
  /** Cancels the timers and waits for the calls in flight; the subscriptions stay. */
  stop(): Promise<void>;
}

/** A receiver without a state folder (queued mode) keeps no subscription: none of its triggers names a webhook. */
export const NO_WEBHOOKS: WebhookLifecycle = {
  start: async () => undefined,
  secret: () => undefined,
  settled: async () => undefined,
  stop: async () => undefined,
};

type Call = 'subscribe' | 'renew';

interface Entry {
  settings: TriggerSettings & { webhook: NonNullable<TriggerSettings['webhook']> };
  kept?: KeptSubscription;
  secret?: string;
  timer?: Timer;
  failures: number;
}

export interface WebhookLifecycleOptions {
  triggers: readonly TriggerSettings[];
  host: WebhookHost | undefined;
  store: SubscriptionStore;
  clock: Clock;
  log: LogSink;
}

/** A renewal the provider refused because it no longer knows the subscription (404, 410 Gone). */
const isForgotten = (error: unknown): error is ConnectorError =>
  error instanceof ConnectorError && (error.code === 'not_found' || error.status === 410);

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const retryDelay = (failures: number) => Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), MAX_RETRY_MS);

/** Whether the kept subscription is the one the trigger's settings ask for now. */
function isCurrent(kept: KeptSubscription, settings: Entry['settings'], url: string): boolean {
  const { webhook } = settings;
  return (
    kept.url === url &&
    kept.environment === settings.environment &&
    kept.webhook.connector === webhook.connector &&
    kept.webhook.trigger === webhook.trigger &&
    kept.webhook.connection.id === webhook.connection.id
  );
}

/**
 * Says what the lifecycle did, and each failure with its typed code. A call's error comes from the
 * SDK's pipeline, whose redaction hid the subscription's secret (and a subscribe's offered one).
 */
function lifecycleLog(log: LogSink, clock: Clock) {
  const say = (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) =>
    log({ level, message, time: new Date(clock.now()).toISOString(), ...fields });
  const failed = (what: string, triggerId: string, error: unknown) => {
    const code = error instanceof ConnectorError ? error.code : 'internal_error';
    const message = excerpt(error instanceof Error ? error.message : String(error), 1000);
    say('error', `webhook ${what} of trigger ${triggerId} failed (${code}): ${message}`, { triggerId, code });
  };
  return { say, failed };
}

type Said = ReturnType<typeof lifecycleLog>;

/** Unsubscribes a subscription its trigger no longer asks for; forgets it once ended (or replaced). */
async function endSubscription(
  deps: Said & { host: WebhookHost | undefined; store: SubscriptionStore },
  kept: KeptSubscription,
  replaced: boolean,
): Promise<void> {
  const { host, store, say, failed } = deps;
  try {
    if (!host) throw new Error('this receiver was given no connectors to unsubscribe with (webhooks option)');
    const input = { id: kept.id, expiresAt: kept.expiresAt };
    await host.call(kept.webhook, kept.environment, 'unsubscribe', input, await store.secret(kept.triggerId));
    say('info', `trigger ${kept.triggerId}: subscription ${kept.id} unsubscribed`, { triggerId: kept.triggerId });
  } catch (error) {
    failed('unsubscribe', kept.triggerId, error);
    // Kept to be tried again at the next start, unless the trigger needs its place now.
    if (!replaced) return;
  }
  await store.forget(kept.triggerId);
}

/** When the kept subscription is next renewed (ms), or undefined when it does not expire. */
function renewalAt(entry: Entry, host: WebhookHost, now: number): number | undefined {
  const expiresAt = entry.kept?.expiresAt;
  if (!expiresAt) return undefined;
  const end = Date.parse(expiresAt);
  if (!host.triggerOf(entry.settings.webhook).renew) return end;
  return now + Math.max(0, (end - now) * RENEW_AT_SHARE);
}

/** What is kept of a subscription just made: never its secret. */
function keptRecord(
  settings: Entry['settings'],
  url: string,
  answer: { id: string; expiresAt?: string | null | undefined },
  now: number,
): KeptSubscription {
  const { triggerId, webhook, environment } = settings;
  const subscribedAt = new Date(now).toISOString();
  return {
    triggerId,
    webhook,
    environment,
    url,
    id: answer.id,
    expiresAt: answer.expiresAt ?? null,
    subscribedAt,
    renewedAt: null,
  };
}

export function webhookLifecycle(options: WebhookLifecycleOptions): WebhookLifecycle {
  const { host, store, clock, log } = options;
  const entries = new Map<string, Entry>();
  for (const settings of options.triggers)
    if (settings.webhook) entries.set(settings.triggerId, { settings: settings as Entry['settings'], failures: 0 });
  const inFlight = new Set<Promise<void>>();
  const settled = async () => {
    while (inFlight.size > 0) await Promise.all(inFlight);
  };
  let stopped = false;
  let urlOf: (settings: TriggerSettings) => string = () => '';
  const { say, failed } = lifecycleLog(log, clock);

  async function subscribe(entry: Entry): Promise<void> {
    const { triggerId, webhook, environment } = entry.settings;
    const url = urlOf(entry.settings);
    const offered = newSecret();
    const answer = await host!.call(webhook, environment, 'subscribe', { url, secret: offered });
    const kept = keptRecord(entry.settings, url, answer, clock.now());
    const secret = answer.secret ?? offered;
    await store.keep(kept, secret);
    Object.assign(entry, { kept, secret });
    say('info', `trigger ${triggerId} subscribed: ${webhook.connector} ${webhook.trigger} subscription ${answer.id}`, {
      triggerId,
    });
  }

  async function renew(entry: Entry): Promise<void> {
    const { triggerId, webhook, environment } = entry.settings;
    // Without `renew` the timer fell at the expiry: a new subscription replaces the one that ended.
    if (!host!.triggerOf(webhook).renew) return subscribe(entry);
    const kept = entry.kept!;
    const input = { id: kept.id, expiresAt: kept.expiresAt };
    const { expiresAt } = await host!.call(webhook, environment, 'renew', input, entry.secret);
    entry.kept = { ...kept, expiresAt, renewedAt: new Date(clock.now()).toISOString() };
    await store.keep(entry.kept);
    say('info', `trigger ${triggerId}: subscription ${kept.id} renewed until ${expiresAt}`, { triggerId });
  }

  function later(entry: Entry, call: Call, ms: number): void {
    if (stopped) return;
    entry.timer?.cancel();
    entry.timer = clock.setTimer(() => {
      entry.timer = undefined;
      void attempt(entry, call);
    }, ms);
  }

  function attempt(entry: Entry, call: Call): Promise<void> {
    const work = (call === 'subscribe' ? subscribe(entry) : renew(entry)).then(
      () => {
        entry.failures = 0;
        const at = renewalAt(entry, host!, clock.now());
        if (at !== undefined) later(entry, 'renew', at - clock.now());
      },
      (error: unknown) => {
        if (call === 'renew' && isForgotten(error)) return forgotten(entry, error);
        entry.failures += 1;
        const delay = retryDelay(entry.failures);
        failed(call, entry.settings.triggerId, error);
        say('info', `webhook ${call} of trigger ${entry.settings.triggerId}: tried again in ${delay / 1000} s`, {
          triggerId: entry.settings.triggerId,
        });
        later(entry, call, delay);
      },
    );
    const tracked = work.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    return tracked;
  }

  /** The provider no longer knows the subscription: a new one replaces it (kept over it), said once. */
  function forgotten(entry: Entry, error: ConnectorError): Promise<void> {
    const { triggerId } = entry.settings;
    const message = `webhook renew of trigger ${triggerId}: the provider no longer knows subscription ${entry.kept!.id} (${error.code}); subscribing again`;
    say('warn', message, { triggerId, code: error.code });
    entry.failures = 0;
    return attempt(entry, 'subscribe');
  }

  return {
    async start(deliveryUrl) {
      urlOf = deliveryUrl;
      for (const kept of await store.list()) {
        const entry = entries.get(kept.triggerId);
        const secret =
          entry && isCurrent(kept, entry.settings, urlOf(entry.settings)) && (await store.secret(kept.triggerId));
        if (entry && secret) Object.assign(entry, { kept, secret });
        else await endSubscription({ host, store, say, failed }, kept, entry !== undefined);
      }
      for (const entry of entries.values()) {
        if (!entry.kept) await attempt(entry, 'subscribe');
        else {
          const at = renewalAt(entry, host!, clock.now());
          if (at !== undefined) later(entry, 'renew', at - clock.now());
        }
      }
    },
    secret: (triggerId) => entries.get(triggerId)?.secret,
    settled,
    async stop() {
      stopped = true;
      for (const entry of entries.values()) entry.timer?.cancel();
      await settled();
    },
  };
}
