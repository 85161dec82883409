import { isAddressRange } from '@plugboard/sdk/host';
import { UsageError } from './usage.js';

/**
 * `PLUGBOARD_ALLOW_NETWORK`: address ranges the transport's network policy lets through,
 * comma-separated CIDR (`127.0.0.0/8` for a local simulator in production, `10.0.0.0/8` for a
 * provider inside the host's own network). Unset, production runs reach public addresses only
 * and sandbox runs public and loopback ones.
 */
export function allowedNetwork(env: Record<string, string | undefined>): string[] {
  const ranges = (env.PLUGBOARD_ALLOW_NETWORK ?? '')
    .split(',')
    .map((range) => range.trim())
    .filter((range) => range !== '');
  const wrong = ranges.find((range) => !isAddressRange(range));
  if (wrong !== undefined)
    throw new UsageError(
      `PLUGBOARD_ALLOW_NETWORK: ${JSON.stringify(wrong)} is not an address range (CIDR such as 127.0.0.0/8, or one address)`,
    );
  return ranges;
}
