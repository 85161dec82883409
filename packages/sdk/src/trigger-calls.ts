import { z } from 'zod';
import type { ConnectionInput } from './connection.js';
import { type Action, defineAction, type Environment } from './definition/action.js';
import type { Connector } from './definition/connector.js';
import type { Subscribed, SubscribeTarget, Trigger, WebhookSubscription } from './definition/trigger.js';
import { excerpt } from './excerpt.js';
import { type PreparedRun, prepareRun, UnknownActionError } from './run.js';

/**
 * A trigger's lifecycle calls (`subscribe`, `renew`, `unsubscribe`) run as actions of their own,
 * destinations that answer one result: through `prepareRun` (what the kit hands them checked
 * before anything is sent), the gate and `runPrepared` (the trigger's rate budget, the network
 * policy, timeouts, redaction, the answer checked against its schema), as every action runs.
 */

/** One call of a trigger's lifecycle. */
export type TriggerCall = 'subscribe' | 'renew' | 'unsubscribe';

/** What each call is given and answers. */
export interface TriggerCalls {
  subscribe: { input: SubscribeTarget; answer: Subscribed };
  renew: { input: WebhookSubscription; answer: { expiresAt: string } };
  unsubscribe: { input: WebhookSubscription; answer: Record<string, never> };
}

const instant = z.iso.datetime({ offset: true });
const id = z.string().min(1).max(512);
const secret = z.string().min(16).max(1024);

const Target = z.strictObject({ url: z.url({ protocol: /^https?$/ }).max(2048), secret });
const Subscription = z.strictObject({ id, expiresAt: instant.nullable() });
const SubscribedSchema = z
  .object({ id, expiresAt: instant.nullable().optional(), secret: secret.optional() })
  .meta({ id: 'PlugboardWebhookSubscription' });
const Renewed = z.object({ expiresAt: instant }).meta({ id: 'PlugboardWebhookRenewal' });
const Ended = z.object({}).meta({ id: 'PlugboardWebhookEnded' });

/** The key a lifecycle call runs under, in logs and errors. */
export function triggerCallKey(triggerKey: string, call: TriggerCall): string {
  return `${triggerKey} ${call}`;
}

/** The connector declares no such trigger: refused as an unknown action is, before anything is sent. */
export class UnknownTriggerError extends UnknownActionError {
  constructor(connector: Connector, triggerKey: string) {
    super(connector, triggerKey);
    const known = connector.triggers.map((trigger) => trigger.key);
    this.message = `connector '${connector.key}' has no trigger '${excerpt(triggerKey)}'; ${known.length ? `its triggers: ${known.join(', ')}` : 'it declares no triggers'}`;
  }
}

/** The trigger's calls, each a destination of its own effect. */
function callsOf(trigger: Trigger): Action[] {
  const common = (call: TriggerCall) => ({
    key: triggerCallKey(trigger.key, call),
    label: `${call} ${trigger.label}`,
    direction: 'destination' as const,
    ...(trigger.budget === undefined ? {} : { budget: trigger.budget }),
  });
  const calls: Action[] = [
    defineAction({
      ...common('subscribe'),
      // Each call makes a subscription: never repeated behind the kit's back.
      effect: { writes: true, idempotent: false, destructive: false },
      entity: SubscribedSchema,
      input: Target,
      write: async (ctx, target) => {
        const made = await trigger.subscribe(ctx, target);
        // The offered secret answered back is the offered one: the run's redaction would hide it from the answer.
        if (made?.secret !== target.secret) return made;
        const { secret: _offered, ...rest } = made;
        return rest;
      },
    }),
    defineAction({
      ...common('unsubscribe'),
      effect: { writes: true, idempotent: true, destructive: true },
      entity: Ended,
      input: Subscription,
      write: async (ctx, subscription) => {
        await trigger.unsubscribe(ctx, subscription);
        return {};
      },
    }),
  ];
  const renew = trigger.renew;
  if (renew)
    calls.push(
      defineAction({
        ...common('renew'),
        effect: { writes: true, idempotent: true, destructive: false },
        entity: Renewed,
        input: Subscription,
        write: async (ctx, subscription) => ({ expiresAt: await renew(ctx, subscription) }),
      }),
    );
  return calls;
}

/** A connector whose actions are the given one's trigger calls; made once per connector. */
const callers = new WeakMap<Connector, Connector>();

function callerOf(connector: Connector): Connector {
  let caller = callers.get(connector);
  if (caller) return caller;
  const actions = new Map(connector.triggers.flatMap(callsOf).map((action) => [action.key, action]));
  caller = { ...connector, actions: [...actions.values()], action: (key) => actions.get(key) };
  callers.set(connector, caller);
  return caller;
}

/**
 * Prepares one lifecycle call of a trigger: the trigger must be declared (`renew` too, for a
 * renewal), its input is checked and the connection resolved; nothing is sent. Run it as any
 * prepared run (`passGate`, then `runPrepared`): it yields one page holding the call's answer.
 */
export function prepareTriggerCall<C extends TriggerCall>(
  connector: Connector,
  triggerKey: string,
  call: C,
  options: { input: TriggerCalls[C]['input']; connection?: ConnectionInput; environment?: Environment },
): PreparedRun {
  if (!connector.trigger(triggerKey)) throw new UnknownTriggerError(connector, triggerKey);
  return prepareRun(callerOf(connector), triggerCallKey(triggerKey, call), {
    input: options.input,
    ...(options.connection ? { connection: options.connection } : {}),
    ...(options.environment ? { environment: options.environment } : {}),
  });
}
