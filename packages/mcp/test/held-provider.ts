import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { shopAnswer } from '@plugboard/example-connector';
import type { SeenRequest } from '@plugboard/testing';

/**
 * The shop's provider on 127.0.0.1 that a test can make hold a request open: the next request
 * to a held path gets no answer until the test gives one, and the test sees whether the caller
 * closed the request's connection meanwhile (its run was aborted).
 */

export interface HeldRequest {
  path: string;
  /** Settles when the caller closed the connection before any answer came. */
  readonly abandoned: Promise<void>;
  /** Answers as the shop would. */
  answer(): void;
}

export interface HeldProvider {
  readonly url: string;
  /** How many requests reached each path. */
  count(path: string): number;
  /** Holds the next request to `path`; settles once it arrived. */
  holdNext(path: string): Promise<HeldRequest>;
  close(): Promise<void>;
}

async function seen(request: IncomingMessage): Promise<SeenRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  return {
    method: request.method ?? 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers: request.headers,
    body: Buffer.concat(chunks).toString('utf8'),
    at: 0,
  };
}

function reply(response: ServerResponse, request: SeenRequest, token: string, sequence: number): void {
  const answer = shopAnswer(request, { token }, sequence);
  response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
  response.end(JSON.stringify(answer.body));
}

export async function startHeldProvider(token: string): Promise<HeldProvider> {
  const counts = new Map<string, number>();
  const holds = new Map<string, (held: HeldRequest) => void>();
  const server = createServer(async (request, response) => {
    const got = await seen(request);
    const sequence = (counts.get(got.path) ?? 0) + 1;
    counts.set(got.path, sequence);
    const hold = holds.get(got.path);
    if (!hold) return reply(response, got, token, sequence);
    holds.delete(got.path);
    const abandoned = new Promise<void>((resolve) =>
      response.once('close', () => {
        if (!response.writableEnded) resolve();
      }),
    );
    hold({ path: got.path, abandoned, answer: () => reply(response, got, token, sequence) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: (path) => counts.get(path) ?? 0,
    holdNext: (path) => new Promise((resolve) => holds.set(path, resolve)),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
