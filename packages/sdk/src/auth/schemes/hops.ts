import type { AppliedAuth } from './scheme-type.js';

/** The hop without the header `name` (lower case), when it has it. */
export function without<H extends { headers: Record<string, string> }>(hop: H, name: string): H {
  if (!(name in hop.headers)) return hop;
  const { [name]: _dropped, ...headers } = hop.headers;
  return { ...hop, headers };
}

/** The credential in the header `name` (lower case) of every hop to the provider, and in no other. */
export function inHeader(name: string, value: string): AppliedAuth {
  return {
    type: 'request',
    onto: (hop, toProvider) =>
      toProvider ? { ...hop, headers: { ...hop.headers, [name]: value } } : without(hop, name),
  };
}

/** The credential in the query parameter `name` of every hop to the provider; taken off the URL of any other. */
export function inQuery(name: string, value: string): AppliedAuth {
  return {
    type: 'request',
    onto: (hop, toProvider) => {
      if (!toProvider && !hop.url.searchParams.has(name)) return hop;
      const url = new URL(hop.url);
      if (toProvider) url.searchParams.set(name, value);
      else url.searchParams.delete(name);
      return { ...hop, url };
    },
  };
}
