/** A pass-through proxy counting the page requests it forwards (see page-proxy.mjs). */
export function startPageProxy(
  target: string,
  listener: (count: number, phase: 'arrived' | 'answered') => void,
): Promise<{ url: string; close(): Promise<void> }>;
