export { runCli, COMMANDS } from './cli.js';
export type { CliOptions, Command, CommandLoader } from './cli.js';
export type { CliIo, ExitCode } from './io.js';
export { PACK } from './pack.js';
export { createProgress } from './progress.js';
export type { Progress } from './progress.js';
