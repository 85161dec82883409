/** Where a command writes; the real process in the binary, buffers in tests. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  cwd: string;
}

export function writeJsonLine(stream: CliIo['stdout'], value: unknown): void {
  stream.write(`${JSON.stringify(value)}\n`);
}

/** Whether a command prints its result as JSON: `--json`, or stdout is not a terminal (a script reads it). */
export function wantsJson({ values, io }: { values: Record<string, unknown>; io: CliIo }): boolean {
  return values.json === true || !io.stdout.isTTY;
}
