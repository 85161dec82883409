const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** ISO 8601 in whole seconds, the way the provider writes timestamps (`2025-11-18T10:30:00Z`). */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / SECOND) * SECOND).toISOString().replace('.000Z', 'Z');
}

export function floorToSecond(ms: number): number {
  return Math.floor(ms / SECOND) * SECOND;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Parses an ISO 8601 timestamp; a bare date means the start of that UTC day, or its end when
 * `endOfDay` (the provider's reading of `updated_before=2026-08-01`). Undefined when invalid.
 */
export function parseInstant(text: string, endOfDay = false): number | undefined {
  if (DATE_ONLY.test(text)) {
    const start = Date.parse(`${text}T00:00:00Z`);
    if (Number.isNaN(start)) return undefined;
    return endOfDay ? start + DAY - 1 : start;
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return undefined;
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(text);
  const ms = Date.parse(hasZone ? text : `${text}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** `HH:MM:SS`, as in the provider's `duration_formatted`. */
export function clockDuration(seconds: number): string {
  const whole = Math.round(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  return [h, m, s].map((n) => String(n).padStart(2, '0')).join(':');
}
