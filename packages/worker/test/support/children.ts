import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** A worker process of the test's (`worker-process.mjs`): what it told, and a way to wait for a message. */
export interface WorkerChild {
  process: ChildProcess;
  messages: Array<{ type: string; id?: string }>;
  /** Resolves once the child has told a message that `match` accepts (or has already). */
  told(match: (message: { type: string; id?: string }) => boolean): Promise<void>;
  /** SIGTERM, and wait for its exit. */
  stop(): Promise<void>;
}

const script = fileURLToPath(new URL('./worker-process.mjs', import.meta.url));
const built = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

export function workerChild(redis: string, postgres: string, apiKey: string, lockDurationMs = 30_000) {
  return forkWorker(script, [redis, postgres, apiKey, String(lockDurationMs)]);
}

/** A worker script of the tests' (it tells `ready`, then each run it takes and finishes) in a process of its own. */
export async function forkWorker(path: string, args: string[]): Promise<WorkerChild> {
  expect(existsSync(built), 'build the worker first: pnpm --filter @plugboard/worker build').toBe(true);
  const child = fork(path, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const messages: WorkerChild['messages'] = [];
  const waiters: Array<() => void> = [];
  child.on('message', (message: { type: string; id?: string }) => {
    messages.push(message);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = once(child, 'exit');
  const told = async (match: (message: { type: string; id?: string }) => boolean) => {
    while (!messages.some(match)) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error('the worker process exited');
      await Promise.race([new Promise<void>((wake) => waiters.push(wake)), exited]);
    }
  };
  const handle: WorkerChild = {
    process: child,
    messages,
    told,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
  await told((message) => message.type === 'ready');
  return handle;
}
