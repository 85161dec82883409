#!/usr/bin/env node
import { enableCompileCache } from 'node:module';
// Compiled code is kept in the system's temporary folder: later starts skip compiling.
enableCompileCache?.();
const { runCli } = await import('./cli.js');

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.once('SIGTERM', () => controller.abort());

// A reader that closed the pipe (`plugboard run ... | head`) has all it wanted.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  controller.abort();
  process.exit(0);
});

const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
process.exitCode = await runCli(process.argv.slice(2), io, { signal: controller.signal });
