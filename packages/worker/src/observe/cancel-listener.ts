import { Redis } from 'ioredis';
import { CANCEL_CHANNEL, cancelKey } from './cancel.js';

/**
 * A worker's side of cancelling: it listens on `plugboard:cancel` and aborts the signal of the run
 * named, when it runs it. A run it takes after the cancel was asked finds the cancel's key (which
 * names the attempt asked for, so a later attempt of the run is not stopped by it).
 */

export interface CancelListener {
  /** The run's signal, aborted when it is cancelled; `release` once the run ended. */
  watch(runId: string, attempt: number): Promise<{ signal: AbortSignal; release(): void }>;
  close(): Promise<void>;
}

export async function listenForCancels(url: string): Promise<CancelListener> {
  const running = new Map<string, { attempt: number; controller: AbortController }>();
  const subscriber = new Redis(url, { maxRetriesPerRequest: null });
  const client = new Redis(url, { maxRetriesPerRequest: null });
  for (const connection of [subscriber, client]) connection.on('error', () => {});
  subscriber.on('message', (channel: string, id: string) => {
    if (channel === CANCEL_CHANNEL) running.get(id)?.controller.abort();
  });
  await subscriber.subscribe(CANCEL_CHANNEL);
  return {
    async watch(runId, attempt) {
      const controller = new AbortController();
      running.set(runId, { attempt, controller });
      // Asked before this worker listened for it: the key says so.
      if ((await client.get(cancelKey(runId))) === String(attempt)) controller.abort();
      return {
        signal: controller.signal,
        release: () => {
          if (running.get(runId)?.controller === controller) running.delete(runId);
        },
      };
    },
    async close() {
      subscriber.disconnect();
      client.disconnect();
    },
  };
}
