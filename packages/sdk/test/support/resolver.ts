import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/**
 * A resolver for the network policy's tests: names answer from a table, and no DNS server is
 * ever asked (`createTransport({ network: { lookup } })`). It keeps the names it was asked.
 */
export interface TableLookup extends LookupFunction {
  readonly asked: string[];
}

export function tableLookup(table: Record<string, string | readonly string[]>): TableLookup {
  const asked: string[] = [];
  const lookup = (hostname: string, options: LookupOptions, callback: Parameters<LookupFunction>[2]) => {
    asked.push(hostname);
    const entry = table[hostname.toLowerCase()];
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const addresses: LookupAddress[] = (typeof entry === 'string' ? [entry] : (entry ?? []))
      .map((address) => ({ address, family: isIP(address) }))
      .filter((answer) => !family || answer.family === family);
    queueMicrotask(() => {
      if (addresses.length === 0) {
        callback(
          Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }),
          options.all ? [] : '',
        );
      } else if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
  return Object.assign(lookup, { asked });
}
