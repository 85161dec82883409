import { setFlagsFromString } from 'node:v8';

/**
 * Keeps V8's young generation at the size it has now, for the rest of the process: for
 * `triggers serve`, whose senders may flood it with bodies over their trigger's limit. Each
 * refused body leaves objects of the HTTP server's to collect (its chunks are freed at once);
 * a young generation grown to its full size (128 MB on Node 24) collects them only after tens
 * of megabytes, and the process keeps the memory. Kept small, the next scavenge takes them. V8
 * reads the growth factor each time the young generation would grow, so it takes effect set
 * once Node runs (as a start-up flag, Node 24 grows the young generation all the same).
 */
export function boundYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
