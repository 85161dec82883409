import { shop } from '@plugboard/example-connector';
import type { Transport } from '@plugboard/sdk';
import { createExecutor, memoryStore } from '@plugboard/sdk/host';
import type { FaultServer } from '@plugboard/testing';
import { actionTools, type ToolServerOptions } from '../src/index.js';

/** The example connector's tools, run through an executor of their own against the shop provider on 127.0.0.1. */
export function shopTools(
  provider: Pick<FaultServer, 'url'>,
  transport: Transport,
  token: string,
  extra: Partial<ToolServerOptions> = {},
): ToolServerOptions {
  const stores = memoryStore();
  const executor = createExecutor({
    connectors: [shop],
    resolveConnection: (id) => ({ id, baseUrl: provider.url }),
    resolveCredential: () => token,
    stores,
    transport,
    log: () => undefined,
  });
  return {
    tools: actionTools([shop]),
    executor,
    connectionId: 'default',
    environment: 'sandbox',
    checkpoints: stores.checkpoints,
    ...extra,
  };
}
