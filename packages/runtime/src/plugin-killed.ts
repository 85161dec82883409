import { ConnectorError } from '@plugboard/sdk';

/** Why a plugin's process ended: a limit it exceeded, a channel it broke, or the host closing it. */
export type KillReason =
  | 'load_timeout'
  | 'idle_timeout'
  | 'memory'
  | 'cancel_ignored'
  | 'exited'
  | 'forged'
  | 'oversized'
  | 'closed';

/** A plugin's process the host ended, or that ended on its own; the runs it held fail with this. */
export class PluginKilledError extends ConnectorError {
  constructor(
    readonly plugin: string,
    readonly reason: KillReason,
    message: string,
    readonly log: string,
  ) {
    super(`${plugin}: ${message}`, { code: 'plugin_killed', retryable: false, platformStatus: 500 });
  }
}
