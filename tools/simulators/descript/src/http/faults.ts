import { errorCodeFor } from '../errors.js';
import type { Reply } from './reply.js';

/** Scripted answers: tests queue faults that replace the simulator's next matching answers. */

export interface Fault {
  status: number;
  /** JSON body; defaults to the provider's error body for the status. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Only requests with this method match (any when absent). */
  method?: string;
  /** Only requests whose path (after `/v1`) equals this string or matches this pattern (any when absent). */
  path?: string | RegExp;
  /** How many answers to replace; default 1. */
  times?: number;
  /** Hold the answer back this long, to simulate a slow provider. */
  delayMs?: number;
}

export class FaultQueue {
  private readonly queue: Array<Fault & { remaining: number }> = [];

  push(fault: Fault): void {
    this.queue.push({ ...fault, remaining: fault.times ?? 1 });
  }

  clear(): void {
    this.queue.length = 0;
  }

  /** The reply of the first fault that matches, consuming one of its uses. */
  take(method: string, path: string): { reply: Reply; delayMs: number } | undefined {
    const index = this.queue.findIndex(
      (fault) =>
        (fault.method === undefined || fault.method.toUpperCase() === method) &&
        (fault.path === undefined || (typeof fault.path === 'string' ? fault.path === path : fault.path.test(path))),
    );
    const fault = this.queue[index];
    if (!fault) return undefined;
    if (--fault.remaining <= 0) this.queue.splice(index, 1);
    return {
      reply: {
        status: fault.status,
        body: fault.body ?? { error: errorCodeFor(fault.status), message: `Simulated ${fault.status} answer` },
        ...(fault.headers ? { headers: fault.headers } : {}),
      },
      delayMs: fault.delayMs ?? 0,
    };
  }
}
