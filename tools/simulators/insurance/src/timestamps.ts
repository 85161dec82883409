const DAY_MS = 86_400_000;

/** ISO 8601 in UTC to the second ("2026-11-21T10:04:11Z"), the form the assumed contract shows. */
export function isoSeconds(at: number): string {
  return new Date(Math.floor(at / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The UTC calendar date of `at` as YYYY-MM-DD. */
export function isoDate(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** Midnight UTC starting the day `days` days after `at`. */
export function startOfDayAfter(at: number, days: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS + days * DAY_MS;
}
