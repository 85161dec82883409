import { hash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A delivery's body read with its trigger's `maxBodyBytes` enforced while reading: a declared
 * `Content-Length` over the limit is refused before a byte is read, and a body that grows past
 * it is refused at the chunk that crosses it. Reading then stops (the caller answers and closes
 * the connection): the rest is never read, and no more than the limit and one chunk is held.
 */

export type BodyRead =
  | { kind: 'read'; body: Buffer; sha256: string }
  | { kind: 'too_large'; bytesRead: number }
  /** The sender went away, or the stream failed: there is no one to answer. */
  | { kind: 'gone' };

/** Whether the sender declared a body larger than the limit (`Content-Length`). */
export function declaredTooLarge(request: IncomingMessage, maxBytes: number): boolean {
  const declared = request.headers['content-length'];
  return declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes;
}

/**
 * Frees a chunk's memory now rather than when the garbage collector finds it: a refused body's
 * reads, up to the limit and a socket read more, would otherwise wait for it, and a flood of them
 * piles up. Only a chunk that is the whole of its ArrayBuffer (each body chunk the HTTP parser
 * hands over is a copy of its own) is detached.
 */
function release(chunk: Buffer): void {
  const { buffer } = chunk;
  if (buffer instanceof ArrayBuffer && chunk.byteOffset === 0 && chunk.byteLength === buffer.byteLength)
    // ES2024, in every Node the package supports; the build's type library is older.
    (buffer as ArrayBuffer & { transfer(length: number): ArrayBuffer }).transfer(0);
}

export function readBody(request: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytesRead = 0;
    const finish = (result: BodyRead) => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onGone);
      request.off('close', onGone);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      bytesRead += chunk.length;
      if (bytesRead > maxBytes) {
        // Nothing more is taken from the socket (pausing the request alone leaves the socket
        // reading until the request's buffer is full); the chunks read so far are let go.
        request.pause();
        request.socket.pause();
        for (const held of [...chunks, chunk]) release(held);
        chunks.length = 0;
        finish({ kind: 'too_large', bytesRead });
        return;
      }
      chunks.push(chunk);
    };
    // Hashed once read whole, in one call: no hash object a request, none for a refused body.
    const onEnd = () => {
      const body = Buffer.concat(chunks, bytesRead);
      finish({ kind: 'read', body, sha256: hash('sha256', body, 'hex') });
    };
    const onGone = () => finish({ kind: 'gone' });
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onGone);
    request.on('close', onGone);
  });
}
