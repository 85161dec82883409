/**
 * The sink's writes one page behind the reader: a page's write starts once the page before it
 * committed, and the reader is let go to ask the provider for the next page while it commits.
 * Writes run strictly in page order, at most one in flight, so each page's compare-and-set
 * still starts from the checkpoint the page before it stored.
 */
export interface WritesBehind {
  /** Waits for the write in flight (throwing its failure), then starts `write` without waiting for it. */
  push(write: () => Promise<void>): Promise<void>;
  /** Resolves once the last write committed; rejects with its failure. */
  settle(): Promise<void>;
}

export function writesBehind(): WritesBehind {
  let inFlight: Promise<void> = Promise.resolve();
  return {
    async push(write) {
      await inFlight;
      inFlight = write();
      // Handled here so that a failure before the next push is not an unhandled rejection;
      // that push, or settle, throws it.
      inFlight.catch(() => {});
    },
    settle: () => inFlight,
  };
}
