/**
 * Where the kit reads the time and waits: budgets, retries, timeouts, approvals' expiry and
 * checkpoints' timestamps all read one clock, so a host can pass its own and a test can drive
 * one by hand instead of waiting real seconds.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once after `ms` (at once on the next turn when 0 or less); returns what cancels it. */
  setTimer(callback: () => void, ms: number): Timer;
}

/** A pending call of `Clock.setTimer`. */
export interface Timer {
  /** Cancels the call; nothing when it already ran. */
  cancel(): void;
}

/** The real clock: `Date.now()` and Node's timers. */
export const systemClock: Clock = {
  now: Date.now,
  setTimer(callback, ms) {
    const handle = setTimeout(callback, Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  },
};

/**
 * Waits `ms` on `clock`; rejects with the signal's reason when it aborts first.
 * @example await sleep(systemClock, 250, signal)
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A clock that moves only when told to: `advance(ms)` runs every timer that falls due, in order. */
export interface ManualClock extends Clock {
  /** Moves the time on by `ms`, running the timers that fall due (and letting their promises settle) in order. */
  advance(ms: number): Promise<void>;
  /** Moves the time on to the next pending timer and runs it; false when none is pending. */
  next(): Promise<boolean>;
  /**
   * Moves the time on from timer to timer until `work` settles, and gives its outcome. Time
   * moves only while `quiet()` says nothing is in flight that no timer waits for (a request on
   * its way; by default time may move at any turn), and while no timer is pending, what is in
   * flight is let run.
   */
  runUntil<T>(work: Promise<T>, quiet?: () => boolean): Promise<T>;
  /** Timers not yet run nor cancelled. */
  readonly pending: number;
}

/**
 * A clock for tests: starts at `start` (ms since the epoch; default 2026-01-01T00:00:00Z)
 * and moves only through `advance` and `next`.
 */
export function manualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let time = start;
  let sequence = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const due = (until: number) => {
    let found: [number, { at: number; callback: () => void }] | undefined;
    for (const entry of timers) {
      if (entry[1].at <= until && (!found || entry[1].at < found[1].at)) found = entry;
    }
    return found;
  };
  // A timer's callback often settles a promise whose handlers set the next timer: let them run first.
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const clock: ManualClock = {
    now: () => time,
    setTimer(callback, ms) {
      const id = sequence++;
      timers.set(id, { at: time + Math.max(0, ms), callback });
      return { cancel: () => void timers.delete(id) };
    },
    async advance(ms) {
      const until = time + ms;
      await settle();
      for (let entry = due(until); entry; entry = due(until)) {
        timers.delete(entry[0]);
        time = Math.max(time, entry[1].at);
        entry[1].callback();
        await settle();
      }
      time = until;
      await settle();
    },
    async next() {
      await settle();
      const entry = due(Number.POSITIVE_INFINITY);
      if (!entry) return false;
      timers.delete(entry[0]);
      time = Math.max(time, entry[1].at);
      entry[1].callback();
      await settle();
      return true;
    },
    async runUntil(work, quiet = () => true) {
      let done = false;
      work.then(
        () => (done = true),
        () => (done = true),
      );
      // I/O is not a timer: while it is under way, or no timer is pending, a real turn lets it come in.
      const turn = () => new Promise((resolve) => setTimeout(resolve, 1));
      while (!done) {
        await settle();
        if (done) break;
        if (!quiet() || !(await clock.next())) await turn();
      }
      return work;
    },
    get pending() {
      return timers.size;
    },
  };
  return clock;
}
