export { runCli } from './cli.js';
export type { CliOptions } from './cli.js';
export { EXIT_CODES } from './exit-codes.js';
export type { ExitCode } from './exit-codes.js';
export type { CliIo } from './io.js';
