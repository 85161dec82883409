import { z } from 'zod';
import type { ActionContext } from '../context.js';
import type { DeliveryRefusal } from '../deliveries/verdict.js';
import { DefinitionError } from './definition-error.js';

/**
 * A provider webhook a connector declares: how the kit subscribes to it, renews and ends the
 * subscription (each call through the connector's usual HTTP context: auth, budgets, network
 * policy), how its deliveries are signed, and how a verified delivery becomes records. The kit
 * (`@plugboard/triggers`) keeps the lifecycle; the author writes only the provider's calls.
 */

/** What a trigger's signature is checked with: one of the SDK's presets, or the author's own function. */
export type WebhookSignature =
  | {
      /**
       * A boolean (an HMAC over the body), or a verdict (a timed scheme) whose event id, when it
       * gives one, is what deliveries are deduplicated by.
       */
      verify(input: {
        headers: Record<string, string | string[] | undefined>;
        body: Uint8Array;
        secret: string;
        now: number;
      }): boolean | { ok: true; eventId?: string; timestamp?: number } | { ok: false; reasonCode: DeliveryRefusal };
    }
  | ((rawBody: Uint8Array, headers: Record<string, string | string[] | undefined>, secret: string) => boolean);

/** What `defineTrigger` takes. */
export interface Trigger<E extends z.ZodType = z.ZodType> {
  /**
   * `resource.event` in lower snake case, stable: the catalogue's operation key, named by a receiver's configuration.
   * @example key: 'orders.created'
   */
  key: string;
  /**
   * A short name people read in the catalogue.
   * @example label: 'Order created'
   */
  label: string;
  /**
   * What the trigger delivers, for the catalogue (Markdown).
   * @example description: 'Each order placed in the shop, as it is placed.'
   */
  description?: string;
  /**
   * The named data type of the records a delivery becomes: a zod schema with `.meta({ id })`; each record is checked against it.
   * @example entity: z.object({ id: z.string(), total: z.number() }).meta({ id: 'Order' })
   */
  entity: E;
  /**
   * How deliveries are signed: `standardWebhookSignature()`, `hmacSignature({ ... })`,
   * `slackSignature()`, or `(rawBody, headers, secret) => boolean`.
   * @example signature: standardWebhookSignature()
   */
  signature: WebhookSignature;
  /**
   * The request header holding the provider's event id, for a scheme whose verdict gives none.
   * @example eventIdHeader: 'x-github-delivery'
   * @default the scheme's id (`webhook-id` for Standard Webhooks), else the SHA-256 of the body
   */
  eventIdHeader?: string;
  /**
   * The rate budget (a key of the connector's `rateLimits`) the lifecycle's requests draw on.
   * @default the connector's `default` budget, if declared
   */
  budget?: string;
  /**
   * Asks the provider to post to `target.url` (the receiver's full delivery URL), signed with
   * `target.secret` (`whsec_` and 32 random bytes in base64); answers the provider's id of the
   * subscription, when it ends (ISO 8601; null or left out when it does not), and the provider's
   * own signing secret if it made one (it then replaces the kit's).
   */
  subscribe: (
    ctx: ActionContext,
    target: { url: string; secret: string },
  ) => Promise<{ id: string; expiresAt?: string | null; secret?: string }>;
  /** Ends the subscription at the provider (as kept: never its secret). */
  unsubscribe: (ctx: ActionContext, subscription: { id: string; expiresAt: string | null }) => Promise<void>;
  /**
   * Extends the subscription before it expires; answers its new `expiresAt` (ISO 8601).
   * @default none: an expiring subscription is replaced by a new one (`subscribe`) instead
   */
  renew?: (ctx: ActionContext, subscription: { id: string; expiresAt: string | null }) => Promise<string>;
  /** The records a verified delivery (its body parsed as a JSON object) carries; an empty list for an event of no interest. */
  records: (delivery: {
    body: Record<string, unknown>;
    headers: Readonly<Record<string, string | string[] | undefined>>;
  }) => readonly z.input<E>[];
}

/** Where the provider is to post, and the signing secret the kit made for it. */
export type SubscribeTarget = Parameters<Trigger['subscribe']>[1];
/** What `subscribe` answers. */
export type Subscribed = Awaited<ReturnType<Trigger['subscribe']>>;
/** A kept subscription as `renew` and `unsubscribe` receive it (never its secret). */
export type WebhookSubscription = Parameters<Trigger['unsubscribe']>[1];
/** A verified delivery as `records` receives it. */
export type WebhookDelivery = Parameters<Trigger['records']>[0];
/** What a preset's signature check answers. */
export type WebhookVerdict = ReturnType<Extract<WebhookSignature, { verify: unknown }>['verify']>;

const TRIGGER_KEY = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const isFunction = (value: unknown) => typeof value === 'function';

function signatureProblems(signature: unknown): string[] {
  if (isFunction(signature)) return [];
  if (typeof signature === 'object' && signature !== null && isFunction((signature as { verify?: unknown }).verify))
    return [];
  return [
    'signature must be standardWebhookSignature(), hmacSignature({ ... }), slackSignature() or (rawBody, headers, secret) => boolean',
  ];
}

/** Every problem of a trigger's declaration, each naming the field. */
export function triggerProblems(trigger: Trigger): string[] {
  const problems: string[] = [];
  if (!TRIGGER_KEY.test(trigger.key ?? '')) problems.push('key must look like `resource.event` in lower snake case');
  if (!trigger.label) problems.push('label is required');
  if (!(trigger.entity instanceof z.ZodType)) problems.push('entity must be a zod schema');
  else if (!z.globalRegistry.get(trigger.entity)?.id)
    problems.push("entity must be a named data type: give it .meta({ id: 'Name' })");
  problems.push(...signatureProblems(trigger.signature));
  if (trigger.eventIdHeader !== undefined && !HEADER_NAME.test(String(trigger.eventIdHeader)))
    problems.push('eventIdHeader must be an HTTP header name');
  for (const field of ['subscribe', 'unsubscribe', 'records'] as const)
    if (!isFunction(trigger[field])) problems.push(`${field} must be a function`);
  if (trigger.renew !== undefined && !isFunction(trigger.renew)) problems.push('renew must be a function');
  return problems;
}

/**
 * Declares one provider webhook, checked now: a declaration that cannot work throws a
 * `DefinitionError` naming each field. `defineConnector` takes it in `triggers`.
 */
export function defineTrigger<E extends z.ZodType>(trigger: Trigger<E>): Trigger<E> {
  const problems = triggerProblems(trigger as unknown as Trigger).map(
    (problem) => `trigger '${String(trigger.key)}': ${problem}`,
  );
  if (problems.length > 0) throw new DefinitionError(problems);
  return Object.freeze({ ...trigger });
}
