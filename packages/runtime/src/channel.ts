import { excerpt } from '@plugboard/sdk';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { jsonLines } from './json-lines.js';
import { errorText } from './load.js';
import type { ChildMessage, HostMessage, StartMessage } from './protocol.js';

/**
 * The channel to a plugin's process: the host's messages go as JSON lines to its stdin, its
 * answers come back as JSON lines on descriptor 3, read with a bound. The plugin can write to
 * descriptor 3 itself: only a message quoting the nonce, which the child holds before the
 * plugin's code runs, is the child's.
 */

/** What the host hears on the channel. */
export interface ChannelEvents {
  /** A message of the plugin's Plugboard process; anything this throws ends the process as forged. */
  onMessage(message: ChildMessage): void;
  /** The plugin broke the channel: its process is to end for `reason`. */
  onBreach(reason: 'forged' | 'oversized', message: string): void;
}

/** The start message's settings; the channel adds the nonce. */
export type StartSettings = Omit<StartMessage, 'type' | 'nonce'>;

/** Opens the channel to a new process with its start message; gives the function that sends the host's messages. */
export function openChannel(
  child: ChildProcess,
  start: StartSettings,
  maxMessageMb: number,
  events: ChannelEvents,
): (message: HostMessage) => void {
  const nonce = randomBytes(16).toString('hex');
  const send = (message: StartMessage | HostMessage) => {
    if (child.stdin?.writable) child.stdin.write(`${JSON.stringify(message)}\n`);
  };
  send({ type: 'start', nonce, ...start });
  // Whatever the plugin's process sends is checked here; a message the host cannot take ends it.
  const take = (message: (ChildMessage & { nonce?: unknown }) | null) => {
    if (message?.nonce !== nonce) {
      events.onBreach(
        'forged',
        'it wrote to the channel to the host itself (a message not from its Plugboard process); its process was killed',
      );
      return;
    }
    try {
      events.onMessage(message);
    } catch (error) {
      events.onBreach(
        'forged',
        `sent a message the host could not take (${excerpt(errorText(error))}); its process was killed`,
      );
    }
  };
  (child.stdio[3] as Socket).on(
    'data',
    jsonLines(
      maxMessageMb * 1024 * 1024,
      (raw) => take(raw as (ChildMessage & { nonce?: unknown }) | null),
      (what) => events.onBreach('oversized', `sent ${what} to the host; its process was killed`),
    ),
  );
  return send;
}
