import { ConnectorError } from '@plugboard/sdk';

/** The typed failures of the run queue: each a `ConnectorError` with a stable `code`, a Redis URL's password masked. */

/** Redis could not be reached: which server, where, and why. Worth trying again later. */
export class QueueUnavailableError extends ConnectorError {
  /** The stable code of this failure. */
  static readonly code = 'queue_unavailable';

  constructor(server: string, reason: string, cause?: unknown) {
    super(`Redis at ${server} cannot be reached: ${reason}`, {
      code: QueueUnavailableError.code,
      retryable: true,
      platformStatus: 503,
      cause,
    });
  }
}

/**
 * The Redis a worker was given may evict keys under memory pressure: a queued run, a job's lock
 * or a rate limit could vanish. Only `maxmemory-policy noeviction` is accepted.
 */
export class EvictionPolicyError extends ConnectorError {
  /** The stable code of this failure. */
  static readonly code = 'redis_eviction_policy';

  /** The policy the server has. */
  readonly policy: string;

  constructor(server: string, policy: string) {
    super(
      `Redis at ${server} has maxmemory-policy ${policy}, which may evict queued runs and their locks; set maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction)`,
      { code: EvictionPolicyError.code, retryable: false, platformStatus: 500 },
    );
    this.policy = policy;
  }
}
