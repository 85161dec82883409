/**
 * Group commit: items submitted while a batch is being written wait together for the next one,
 * so a burst costs one write and one flush, not one each. Each item's promise settles with its
 * batch: resolved once the batch is written, rejected with the batch's error.
 */

export interface GroupCommit<T> {
  submit(item: T): Promise<void>;
  /** Resolves once every item submitted so far is written (or failed). */
  settled(): Promise<void>;
}

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export function groupCommit<T>(write: (batch: T[]) => Promise<void>): GroupCommit<T> {
  let waiting: Waiting<T>[] = [];
  let flushing: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    flushing = undefined;
  };
  return {
    submit(item) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        flushing ??= flush();
      });
    },
    settled: async () => {
      await flushing;
    },
  };
}
