import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
import type { CliIo } from '../src/index.js';

/** A small connector and its provider on 127.0.0.1, for the CLI's tests. */

const Note = z.object({ id: z.string(), text: z.string(), updated_at: z.string() }).meta({ id: 'Note' });

export const notes = defineConnector({
  key: 'notes',
  name: 'Notes',
  version: '1.0.0',
  vendor: null,
  category: 'productivity',
  status: 'beta',
  summary: 'Notes for the CLI tests.',
  auth: bearerToken(),
  actions: [
    defineAction({
      key: 'notes.list',
      label: 'List notes',
      direction: 'source',
      entity: Note,
      input: z.object({ limit: z.number().int().min(1).max(10).default(2) }),
      incremental: { cursorField: 'updated_at', checkpoint: z.object({ after: z.string() }) },
      async *read(ctx, input) {
        let cursor: string | undefined;
        do {
          const page = await ctx.http.get<{ data: z.input<typeof Note>[]; next?: string }>('/notes', {
            query: { limit: input.limit, cursor, after: ctx.checkpoint?.after },
          });
          cursor = page.next;
          ctx.progress({ label: 'reading notes', done: page.data.length });
          const last = page.data.at(-1);
          yield { records: page.data, ...(last ? { checkpoint: { after: last.updated_at } } : {}) };
        } while (cursor);
      },
    }),
    defineAction({
      key: 'notes.create',
      label: 'Create a note',
      direction: 'destination',
      entity: Note,
      input: z.object({ text: z.string().min(1) }),
      async write(ctx, input) {
        return ctx.http.post('/notes', input);
      },
    }),
  ],
});

export const TOKEN = 'cli-test-token-5e1d';

export async function startNotesServer() {
  const all = Array.from({ length: 5 }, (_, index) => ({ id: `n${index + 1}`, text: `note ${index + 1}`, updated_at: `2026-11-0${index + 1}` }));
  const seen: string[] = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    seen.push(`${req.method} ${url.pathname}${url.search}`);
    res.setHeader('content-type', 'application/json');
    res.setHeader('x-request-id', 'req_cli1');
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.statusCode = 401;
      return res.end(JSON.stringify({ error: 'unauthorized', message: 'bad token' }));
    }
    if (req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      res.statusCode = 201;
      return res.end(JSON.stringify({ id: 'n6', text: JSON.parse(body).text, updated_at: '2026-11-06' }));
    }
    const after = url.searchParams.get('after') ?? '';
    const offset = Number(url.searchParams.get('cursor') ?? 0);
    const limit = Number(url.searchParams.get('limit'));
    const matching = all.filter((note) => note.updated_at > after);
    const next = offset + limit < matching.length ? String(offset + limit) : undefined;
    res.end(JSON.stringify({ data: matching.slice(offset, offset + limit), ...(next ? { next } : {}) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Buffers standing in for the process streams. */
export function bufferIo(env: Record<string, string | undefined> = {}, tty = false) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text), isTTY: tty, columns: 80 },
    env,
    cwd: process.cwd(),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}
