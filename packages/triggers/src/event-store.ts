/**
 * Where a receiver keeps the deliveries it accepted: at once the dedupe record of each event id
 * (durable across a restart) and the run's input (kept `inputRetentionDays`, and while its run
 * is pending). The state folder's implementation is `eventLog` (event-log.ts).
 */

/** A delivery as accepted: its records are the run's input. */
export interface AcceptedDelivery {
  triggerId: string;
  /** As a receipt keeps it: the trigger's secrets hidden. */
  eventId: string;
  deliveryId: string;
  /** The run it started; null when its trigger starts none. */
  executionId: string | null;
  receivedAt: string;
  records: unknown[];
}

export type Claim =
  | {
      claimed: true;
      /**
       * Given when the claim is still being written: it holds only once this resolves (rejects
       * when its write failed, and the event is not claimed). Absent: it is durable already.
       */
      durable?: Promise<void>;
    }
  | { claimed: false; first: AcceptedDelivery };

export interface EventStore {
  /**
   * Keeps the delivery unless the event id the sender signed (`eventId`) was accepted before (then
   * the first one is given); `pending` marks its run as not yet ended. May answer claimed before
   * the claim is durable (see `durable`), so the caller can write what follows alongside.
   */
  claim(delivery: AcceptedDelivery, eventId: string, pending: boolean): Promise<Claim>;
  /** The run of the delivery ended: it is no longer pending. */
  runEnded(deliveryId: string): Promise<void>;
  /** Accepted deliveries whose run has not ended, oldest first. */
  pending(): Promise<AcceptedDelivery[]>;
  /** Removes the deliveries of a trigger received before `before` (ms since the epoch); returns how many. */
  prune(triggerId: string, before: number): Promise<number>;
}
