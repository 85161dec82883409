import { readFile, rename, writeFile } from 'node:fs/promises';

/**
 * The CLI's checkpoint store: one JSON file per run target. A checkpoint is
 * written only after its page's records went to stdout, and atomically, so a
 * crash re-reads at most one page and never skips one.
 */
export async function loadCheckpoint(file: string): Promise<unknown> {
  try {
    return (JSON.parse(await readFile(file, 'utf8')) as { checkpoint?: unknown }).checkpoint;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`--checkpoint-file ${file}: ${(error as Error).message}`);
  }
}

export async function saveCheckpoint(file: string, checkpoint: unknown): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ checkpoint, savedAt: new Date().toISOString() })}\n`);
  await rename(temporary, file);
}
