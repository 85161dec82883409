/** The requests the simulator received, for tests that check what a connector sent. */

export interface RecordedRequest {
  id: string;
  method: string;
  /** Path after the `/v1` base, e.g. `/projects`. */
  path: string;
  /** Query parameters; repeated ones as arrays. */
  query: Record<string, string | string[]>;
  /** Parsed JSON body, raw text when it was not JSON, undefined when empty. */
  body?: unknown;
  /** Whether an Authorization header was sent (the token itself is not kept). */
  authorized: boolean;
  /** Status of the answer. */
  status?: number;
}

export class RequestLog {
  private readonly entries: RecordedRequest[] = [];

  /** Keeps the last `capacity` requests, so long benchmark runs do not grow without bound. */
  constructor(private readonly capacity: number) {}

  get all(): readonly RecordedRequest[] {
    return this.entries;
  }

  add(entry: RecordedRequest): void {
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  clear(): void {
    this.entries.length = 0;
  }
}

export function queryRecord(query: URLSearchParams): Record<string, string | string[]> {
  const record: Record<string, string | string[]> = {};
  for (const [name, value] of query) {
    const previous = record[name];
    record[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return record;
}
