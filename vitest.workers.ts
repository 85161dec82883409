import { availableParallelism } from 'node:os';

/**
 * How many test files run at once, in every project: Vitest's default is one worker fewer than
 * the cores, one on a 2-core machine, where most files spend their time waiting on child
 * processes, servers and installs. Two keep both cores busy there; larger machines keep the
 * default. Projects that share workers (isolate: false) must agree on it.
 */
export const maxWorkers = Math.max(2, availableParallelism() - 1);
