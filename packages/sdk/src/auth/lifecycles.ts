import { excerpt } from '../excerpt.js';
import { sharedStateOf, type TransportParts } from '../http/transport.js';
import type { RedisConnection } from '../redis/connection.js';
import { type CredentialStore, memoryCredentialStore } from '../tokens.js';
import { fileLease } from './file-lease.js';
import { NO_LEASE, type RefreshLease } from './lease.js';
import { ConnectionTokens } from './lifecycle.js';
import { redisLease } from './redis-lease.js';
import { preloadOAuth } from './token-requests.js';
import { DEFAULT_TOKEN_TIMEOUT_MS } from './token-send.js';

/**
 * One token lifecycle per (connector, connection) and transport, so that every run of a
 * process shares its refreshes; made on first use from the transport's `credentials`.
 */

/** Beyond a token request's own bound, what a lease leaves for reading and writing the store. */
const LEASE_MARGIN_MS = 5_000;

const lifecycles = new WeakMap<TransportParts, Map<string, ConnectionTokens>>();
const stores = new WeakMap<TransportParts, CredentialStore>();

/** How token errors name a connection: `connector 'x' connection 'y'`. */
export function tokenSubject(connectorKey: string, connectionId: string): string {
  return `connector '${connectorKey}' connection '${excerpt(connectionId)}'`;
}

export function connectionTokens(
  transport: TransportParts,
  connectorKey: string,
  connectionId: string,
): ConnectionTokens {
  let kept = lifecycles.get(transport);
  if (!kept) lifecycles.set(transport, (kept = new Map()));
  const name = `${connectorKey}:${connectionId}`;
  let tokens = kept.get(name);
  if (!tokens) {
    preloadOAuth();
    const { credentials: options, redis } = sharedStateOf(transport);
    const tokenTimeoutMs = options.tokenTimeoutMs ?? DEFAULT_TOKEN_TIMEOUT_MS;
    let store = options.store ?? stores.get(transport);
    if (!store) stores.set(transport, (store = memoryCredentialStore()));
    tokens = new ConnectionTokens({
      connectionId,
      store,
      lease: leaseOf(transport, redis, options.lockFolder, tokenTimeoutMs + LEASE_MARGIN_MS),
      leaseName: name,
      clock: transport.clock,
      refreshMarginMs: options.refreshMarginMs,
      tokenTimeoutMs,
    });
    kept.set(name, tokens);
  }
  return tokens;
}

function leaseOf(
  transport: TransportParts,
  redis: RedisConnection | undefined,
  lockFolder: string | undefined,
  leaseMs: number,
): RefreshLease {
  if (redis) return redisLease(redis, transport.clock, leaseMs);
  return lockFolder === undefined ? NO_LEASE : fileLease(lockFolder, transport.clock, leaseMs);
}
