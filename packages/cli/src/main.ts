#!/usr/bin/env node
// A namespace, not a named import: an older Node lacks enableCompileCache, and must get as far as the check below.
import * as nodeModule from 'node:module';
import { MIN_NODE, nodeTooOld } from './node-version.js';

// Before anything that needs a newer Node is loaded: a clear word, not a crash inside a dependency.
if (nodeTooOld()) {
  process.stderr.write(
    `plugboard: Node ${process.versions.node} is too old; Plugboard needs Node ${MIN_NODE} or newer (https://nodejs.org)\n`,
  );
  process.exit(2);
}
// Compiled code is kept in the system's temporary folder: later starts skip compiling.
nodeModule.enableCompileCache?.();
const { runCli } = await import('./cli.js');

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.once('SIGTERM', () => controller.abort());

// A reader that closed the pipe (`plugboard run ... | head`) has all it wanted: stop at once. When another
// part of the process handles stdout's errors (the MCP server over stdio, whose client left), the command
// winds down on the abort instead, as on Ctrl+C: its calls in flight end aborted and free their idempotency
// keys before the process exits, which an exit here would cut short.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  controller.abort();
  if (process.stdout.listenerCount('error') === 1) process.exit(0);
});

const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
process.exitCode = await runCli(process.argv.slice(2), io, { signal: controller.signal });
