import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readBody } from '../src/body.js';

/**
 * What keeps a receiver's memory flat under a flood of bodies over its limit: a refused body's
 * chunks are freed at once, not when the garbage collector next runs.
 */

const LIMIT = 64 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

/** Streams a chunked body of `chunks` 64 KB chunks until the server closes the connection. */
async function streamChunks(port: number, chunks: number): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  // Not events.once: a connection reset under the writes is how this ends, not a failure.
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.write('POST /d HTTP/1.1\r\nhost: 127.0.0.1\r\ntransfer-encoding: chunked\r\n\r\n');
  for (let index = 0; index < chunks && !socket.destroyed; index += 1)
    socket.write(`${CHUNK.length.toString(16)}\r\n${CHUNK.toString('latin1')}\r\n`, 'latin1');
  await closed;
}

describe('a refused body', () => {
  it('has every chunk it read freed when it is refused at maxBodyBytes', async () => {
    const seen: Buffer[] = [];
    let refused: Awaited<ReturnType<typeof readBody>> | undefined;
    const server = createServer(async (request: IncomingMessage, response) => {
      // Registered first: sees each chunk as readBody does.
      request.on('data', (chunk: Buffer) => void seen.push(chunk));
      // The connection is dropped under the sender still writing: the request ends reset.
      request.on('error', () => undefined);
      refused = await readBody(request, LIMIT);
      response.writeHead(413, { connection: 'close' }).end();
      response.once('finish', () => request.socket.destroy());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      await streamChunks((server.address() as AddressInfo).port, 8);
    } finally {
      server.close();
    }
    expect(refused).toMatchObject({ kind: 'too_large' });
    expect(seen.length).toBeGreaterThan(1);
    const owned = seen.filter((chunk) => chunk.byteOffset === 0);
    expect(owned.length).toBeGreaterThan(0);
    for (const chunk of owned) expect(chunk.buffer.byteLength).toBe(0);
  });
});
