import type { Environment } from '../../definition/environment.js';
import type { AddressRefusedError } from '../../errors.js';
import { events } from '../events.js';
import { type NetworkPolicy, refusalIn } from '../network-policy.js';
import type { Call, Send, StageAbout } from './stage.js';

/** What the network policy stage uses: the transport's policy and the environment the run connects under. */
export interface NetworkPolicyOptions {
  network: NetworkPolicy;
  environment: Environment;
  about: StageAbout;
}

/**
 * The network policy, at every hop: an address literal the run's environment may not reach is
 * refused before anything is sent; a name is checked when the connection looks it up (the
 * transport's pools resolve through the policy), and the transport hands that refusal up as
 * it is.
 */
export function networkPolicy({ network, environment, about }: NetworkPolicyOptions, next: Send): Send {
  const refused = (call: Call, error: unknown) => {
    const refusal = refusalIn(error);
    if (refusal) publishRefusal(about, call, refusal);
    throw error;
  };
  // The policy's verdict on a URL depends on its host and the environment only: the host last let through is not asked again.
  let passed: string | undefined;
  return (call) => {
    const host = call.url.hostname;
    if (host !== passed) {
      try {
        network.checkUrl(call.url, environment);
        passed = host;
      } catch (error) {
        refused(call, error);
      }
    }
    // Watched only when someone listens: a request pays nothing for the event otherwise.
    return events.refused.hasSubscribers ? next(call).catch((error: unknown) => refused(call, error)) : next(call);
  };
}

function publishRefusal(about: StageAbout, call: Call, refusal: AddressRefusedError): void {
  if (!events.refused.hasSubscribers) return;
  events.refused.publish({
    ...about,
    operation: call.operation,
    reason: 'network',
    code: refusal.code,
    addressClass: refusal.addressClass,
  });
}
