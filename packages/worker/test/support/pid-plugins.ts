/**
 * Plugin connectors for the warm plugins' tests: each run's record names the pid of the process
 * that ran it, so a test sees which process served which run.
 */

/** A connector whose runs answer the pid of the process that ran them; `pid.held` waits for the gate first. */
export function pidConnector(key: string): string {
  const action = (name: string, before: string) =>
    `defineAction({ key: '${name}', label: '${name}', direction: 'source', entity: Seen, input: z.object({ n: z.number() }),
      async *read(ctx, { n }) { ${before} yield { records: [{ id: String(n), pid: process.pid }] }; } })`;
  return `
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
const Seen = z.object({ id: z.string(), pid: z.number() }).meta({ id: '${key}Seen' });
const kept = [];
export default defineConnector({
  key: '${key}', name: 'Pids ${key}', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'Says which process ran it.', auth: bearerToken(), baseUrl: 'http://127.0.0.1:9',
  actions: [
    ${action('pid.get', '')},
    ${action('pid.held', "await ctx.http.get('/gate');")},
    ${action('memory.hold', 'kept.push(Buffer.alloc(192 * 1024 * 1024, 1));')},
  ],
});
`;
}
