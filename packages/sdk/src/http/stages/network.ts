import type { AddressRefusedError } from '../../errors.js';
import { events } from '../events.js';
import { refusalIn } from '../network-policy.js';
import type { ClientSettings } from '../settings.js';
import type { Call, Send } from './stage.js';

/**
 * The network policy, at every hop: an address literal the run's environment may not reach is
 * refused before anything is sent; a name is checked when the connection looks it up (the
 * transport's pools resolve through the policy), and the transport hands that refusal up as
 * it is.
 */
export function networkPolicy(settings: ClientSettings, next: Send): Send {
  const { transport, environment } = settings;
  const refused = (call: Call, error: unknown) => {
    const refusal = refusalIn(error);
    if (refusal) publishRefusal(settings, call, refusal);
    throw error;
  };
  return (call) => {
    try {
      transport.network.checkUrl(call.url, environment);
    } catch (error) {
      refused(call, error);
    }
    // Watched only when someone listens: a request pays nothing for the event otherwise.
    return events.refused.hasSubscribers ? next(call).catch((error: unknown) => refused(call, error)) : next(call);
  };
}

function publishRefusal({ connector, action }: ClientSettings, call: Call, refusal: AddressRefusedError): void {
  if (!events.refused.hasSubscribers) return;
  events.refused.publish({
    connector: connector.key,
    action: action.key,
    operation: call.operation,
    reason: 'network',
    code: refusal.code,
    addressClass: refusal.addressClass,
  });
}
