import type { Clock, Timer } from '@plugboard/sdk/host';

/**
 * Work done later, on the receiver's clock: `ask` runs it `ms` from then, once however often it
 * is asked meanwhile. Stopped, it is asked no more, and `stop` waits for the work under way.
 */
export interface Later {
  ask(): void;
  stop(): Promise<void>;
}

/** `work` handles its own failures: it never rejects. */
export function later(clock: Clock, ms: number, work: () => Promise<void>): Later {
  let timer: Timer | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  return {
    ask() {
      if (stopped) return;
      timer ??= clock.setTimer(() => {
        timer = undefined;
        running = work().finally(() => {
          running = undefined;
        });
      }, ms);
    },
    async stop() {
      stopped = true;
      timer?.cancel();
      timer = undefined;
      await running;
    },
  };
}
