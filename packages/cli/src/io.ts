/** Where a command writes; the real process in the binary, buffers in tests. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  cwd: string;
}

/** A finished command: the process exit code. 0 success, 1 failure, 2 bad input or usage. */
export type ExitCode = 0 | 1 | 2;

export function writeJsonLine(stream: CliIo['stdout'], value: unknown): void {
  stream.write(`${JSON.stringify(value)}\n`);
}
