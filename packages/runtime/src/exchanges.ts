import type { KillReason, PluginKilledError } from './plugin-killed.js';
import type { ChildMessage, HostMessage } from './protocol.js';

/**
 * The host's exchanges with a plugin's process (a preparation, a resumption, a run), each under
 * an id of its own, with an idle timer that runs while the host waits for the plugin.
 */

/** How an exchange hears from the plugin's process, or of its end. */
export interface ExchangeHandlers {
  onMessage(message: ChildMessage): void;
  onKilled(error: PluginKilledError): void;
}

export interface Exchange {
  id: string;
  send(message: HostMessage): void;
  /** The plugin spoke, or the host waits for it again: the idle time starts again. */
  touch(): void;
  /** While the host itself works on a page, the plugin waits for it: no idle time is counted. */
  pause(): void;
  end(): void;
}

/** What the exchanges need of their plugin's process. */
export interface ExchangePort {
  send(message: HostMessage): void;
  kill(reason: KillReason, message: string): void;
  /** An exchange opened or ended. */
  changed(): void;
}

interface IdleTimer {
  touch(): void;
  pause(): void;
  stop(): void;
}

/** Calls `onIdle` after `limit` ms without a touch, unless paused. One timer, not one per message: it looks at the latest touch when it fires. */
function idleTimer(limit: number, onIdle: () => void): IdleTimer {
  let last = performance.now();
  let paused = false;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const quiet = performance.now() - last;
    if (paused) timer = undefined;
    else if (quiet >= limit) onIdle();
    else timer = setTimeout(check, limit - quiet);
  };
  return {
    touch: () => {
      last = performance.now();
      paused = false;
      timer ??= setTimeout(check, limit);
    },
    pause: () => {
      paused = true;
    },
    stop: () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

export class Exchanges {
  private readonly open = new Map<string, ExchangeHandlers>();
  private nextId = 0;

  constructor(
    private readonly idleTimeoutMs: number,
    private readonly port: ExchangePort,
  ) {}

  /** True when nothing is asked of the plugin. */
  get quiet(): boolean {
    return this.open.size === 0;
  }

  /** Sends the message that opens a new exchange and registers its handlers; the idle timer runs until it ends. */
  start(build: (id: string) => HostMessage, handlers: ExchangeHandlers): Exchange {
    const id = String((this.nextId += 1));
    const limit = this.idleTimeoutMs;
    const idle = idleTimer(limit, () =>
      this.port.kill('idle_timeout', `went ${limit} ms without a page or an answer; its process was killed`),
    );
    const end = () => {
      idle.stop();
      this.open.delete(id);
      this.port.changed();
    };
    this.open.set(id, handlers);
    this.port.changed();
    idle.touch();
    const send = (message: HostMessage) => this.port.send(message);
    send(build(id));
    return { id, send, touch: idle.touch, pause: idle.pause, end };
  }

  /** Hands a message of the plugin's process to the exchange it names. */
  route(message: ChildMessage): void {
    if ('id' in message) this.open.get(message.id)?.onMessage(message);
  }

  /** The process ended: every open exchange fails with `error`. */
  failAll(error: PluginKilledError): void {
    for (const handlers of [...this.open.values()]) handlers.onKilled(error);
    this.open.clear();
  }
}
