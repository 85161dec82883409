import type { Client } from '@modelcontextprotocol/client';
import { shop } from '@plugboard/example-connector';
import type { Transport } from '@plugboard/sdk';
import { createExecutor, memoryStore } from '@plugboard/sdk/host';
import type { FaultServer } from '@plugboard/testing';
import { expect } from 'vitest';
import { actionTools, type ToolServerOptions } from '../src/index.js';
import type { AuthorizationServerOptions } from '../../sdk/test/support/oauth.js';

type ClientMetadata = NonNullable<AuthorizationServerOptions['extraClients']>[number];

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

/**
 * The approval page's client at the test's authorization server: public, the code flow, its
 * redirect on a loopback address so any port is taken (RFC 8252), so the server may listen on a free one.
 */
export function approvalPageClient(clientId: string): ClientMetadata {
  return {
    client_id: clientId,
    application_type: 'native',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: ['http://127.0.0.1/approvals/sign-in'],
    scope: 'openid',
  };
}

/**
 * The approved order's call with `approvalId` runs (its order created), a second is refused as
 * used, and the provider saw exactly one request more than `before`.
 */
export async function expectApprovedOnce(
  client: Client,
  call: { order: Record<string, unknown>; approvalId: string },
  provider: Pick<FaultServer, 'requests'>,
  before: number,
): Promise<void> {
  const args = { ...call.order, approvalId: call.approvalId };
  const ran = await client.callTool({ name: 'shop_orders_create', arguments: args });
  expect(ran.isError, JSON.stringify(ran.content)).toBeFalsy();
  expect(ran.structuredContent).toMatchObject({ order_id: expect.any(String) });
  const again = await client.callTool({ name: 'shop_orders_create', arguments: args });
  expect(again.structuredContent).toMatchObject({ code: 'approval_used' });
  expect(provider.requests.length - before).toBe(1);
}
