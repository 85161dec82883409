export { runCli, COMMANDS } from './cli.js';
export type { CliOptions, Command } from './cli.js';
export type { CliIo, ExitCode } from './io.js';
export { PACK } from './pack.js';
