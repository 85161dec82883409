import { createReadStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ReasonCode } from './answer.js';
import { groupCommit } from './group-commit.js';
import { type LogFile, openLog, syncFolder } from './log-file.js';
import {
  dayOf,
  firstReceivedAt,
  RECEIPTS_FILE,
  filesSetAside,
  removeSetAside,
  setCurrentAside,
} from './receipt-files.js';

/**
 * A TriggerDelivery receipt for each request to a known trigger, appended as a JSON line to one
 * file and flushed to disk before the request is answered. Appends that arrive while a flush is
 * under way go together in the next write and flush, so a burst costs one flush, not one each.
 * A receipt that stands on a claim (an accepted delivery's) is written while its claim is, and
 * cut off again if the claim's write fails: no receipt says accepted of a delivery that was not
 * kept. A last line a crash tore is cut off when the file is opened, so the next receipt is a
 * line of its own. A receipt holds what the platform's TriggerDelivery holds, never the body or
 * a secret. Kept for a number of days, the file is set aside once a day and removed whole
 * (`receipt-files.ts`).
 */

export { RECEIPTS_FILE };

/** The platform's TriggerDelivery, with the trigger it was posted to. */
export interface TriggerDelivery {
  deliveryId: string;
  triggerId: string;
  /** ISO 8601, on the receiver's clock. */
  receivedAt: string;
  status: 'accepted' | 'duplicate' | 'refused';
  reasonCode: ReasonCode | null;
  httpStatus: number | null;
  /** As the sender named it (`X-Platform-Event-Id`), when well formed; verified only when accepted. */
  eventId: string | null;
  /** The body's top-level `type`, when it is a string. */
  eventType: string | null;
  /** SHA-256 of the raw body, hex, when it was read whole. */
  payloadSha256: string | null;
  /** Bytes of the body read; null when refused before reading. */
  sizeBytes: number | null;
  recordCount: number | null;
  executionId: string | null;
}

export interface ReceiptLog {
  /**
   * Resolves once the receipt is on disk. With `holds` (the write of the claim it reports), it is
   * kept only if that resolves: when it rejects, the receipt is cut off and this rejects with its error.
   */
  append(receipt: TriggerDelivery, holds?: Promise<void>): Promise<void>;
  /** Removes receipts received before `before` (ms since the epoch), or files of them: see each store. */
  prune(before: number): Promise<void>;
  close(): Promise<void>;
}

interface Line {
  text: string;
  holds: Promise<void> | undefined;
  receivedAt: number;
}

const stands = (outcome: PromiseSettledResult<void>) => outcome.status === 'fulfilled';

/** Writes a batch; when a claim it stands on failed, cuts it off and writes again those that stand. */
async function writeBatch(log: LogFile, batch: Line[]): Promise<void> {
  const start = log.size;
  await log.append(batch.map((line) => line.text).join(''));
  if (batch.every((line) => line.holds === undefined)) return;
  const outcomes = await Promise.allSettled(batch.map((line) => line.holds));
  if (outcomes.every(stands)) return;
  await log.cutTo(start);
  const standing = batch.filter((_, at) => stands(outcomes[at]!));
  if (standing.length > 0) await log.append(standing.map((line) => line.text).join(''));
}

/**
 * The receipts of the state folder `stateDir`. With `daily`, the current file is set aside on the
 * first receipt of a new UTC day, so `prune` can remove whole files.
 */
export function receiptLog(stateDir: string, options: { daily?: boolean } = {}): ReceiptLog {
  const file = join(stateDir, RECEIPTS_FILE);
  let opening: Promise<LogFile> | undefined;
  // When the current file's first receipt came; undefined while it has none, or while it is set aside.
  let began: number | undefined;
  // A failed open is not kept: the next append tries again.
  const opened = () =>
    (opening ??= mkdir(stateDir, { recursive: true, mode: 0o700 })
      .then(async () => {
        const log = await openLog(file);
        began = await firstReceivedAt(file);
        return log;
      })
      .catch((error: unknown) => {
        opening = undefined;
        throw error;
      }));
  const setAsideFor = async (log: LogFile, receivedAt: number): Promise<LogFile> => {
    if (!options.daily || began === undefined || dayOf(receivedAt) <= dayOf(began)) return log;
    const setting = began;
    // A pruning meanwhile finds no end to the file being set aside, and keeps it.
    began = undefined;
    await log.close();
    opening = undefined;
    await setCurrentAside(stateDir, setting);
    const next = await opened();
    await syncFolder(file);
    return next;
  };
  const lines = groupCommit<Line>(async (batch) => {
    const log = await setAsideFor(await opened(), batch[0]!.receivedAt);
    await writeBatch(log, batch);
    if (log.size > 0) began ??= batch[0]!.receivedAt;
  });
  return {
    async append(receipt, holds) {
      // Its failure is this append's, seen once the batch is written: not an unhandled rejection meanwhile.
      holds?.catch(() => undefined);
      await lines.submit({ text: `${JSON.stringify(receipt)}\n`, holds, receivedAt: Date.parse(receipt.receivedAt) });
      await holds;
    },
    async prune(before) {
      await opened();
      await removeSetAside(stateDir, () => began, before);
    },
    async close() {
      await lines.settled();
      const closing = opening;
      opening = undefined;
      await (await closing?.catch(() => undefined))?.close();
    },
  };
}

/** The receipts of one file, oldest first, of one trigger or of all; none when there is no file. */
async function* receiptsOf(path: string, triggerId: string | undefined): AsyncGenerator<TriggerDelivery> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const opening = new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    stream.once('open', () => resolve(undefined));
    stream.once('error', resolve);
  });
  const failure = await opening;
  if (failure?.code === 'ENOENT') return;
  if (failure) throw failure;
  for await (const line of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
    let receipt: TriggerDelivery;
    try {
      receipt = JSON.parse(line) as TriggerDelivery;
    } catch {
      continue;
    }
    if (triggerId === undefined || receipt.triggerId === triggerId) yield receipt;
  }
}

/**
 * The receipts a receiver kept in `stateDir`, oldest first (the files set aside, then the
 * current one): of one trigger, or of all; none when it kept none. A line torn by a crash is
 * passed over.
 */
export async function* listDeliveries(
  stateDir: string,
  options: { triggerId?: string } = {},
): AsyncGenerator<TriggerDelivery> {
  for (const { name } of await filesSetAside(stateDir)) yield* receiptsOf(join(stateDir, name), options.triggerId);
  yield* receiptsOf(join(stateDir, RECEIPTS_FILE), options.triggerId);
}
