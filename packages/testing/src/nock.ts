import type NockType from 'nock';

/**
 * nock is loaded on first use, not on import: importing nock patches the
 * process's `http` and `fetch` at once, and a CLI or a test that only uses the
 * fault server should not pay for that. Recording and replay change nock's
 * global state, so they run one at a time, and each leaves nock as it found
 * it: no interceptors, no recorder, globals restored, network allowed.
 */

export type Nock = typeof NockType;

let loaded: Promise<Nock> | undefined;

export function loadNock(): Promise<Nock> {
  loaded ??= import('nock').then(({ default: nock }) => {
    settle(nock);
    return nock;
  });
  return loaded;
}

/** Back to neutral: nothing intercepted, nothing recorded, net connect allowed. */
export function settle(nock: Nock): void {
  nock.cleanAll();
  nock.restore();
  nock.recorder.clear();
  nock.enableNetConnect();
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `task` after every earlier recording or replay of this process has finished. */
export function exclusive<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

export function assertNockOn(): void {
  if (process.env.NOCK_OFF === 'true') {
    throw new Error('NOCK_OFF=true turns nock off, so fixtures can neither be recorded nor replayed; unset it');
  }
}
