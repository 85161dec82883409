import { once } from 'node:events';
import { loadOpenApiDocument } from '../openapi-document.js';
import { startMockServer } from '../mock/server.js';
import type { Invocation } from '../program.js';
import { portInUse, UsageError } from '../usage.js';

/**
 * `plugboard mock <openapi-file> [--port N] [--host H]`: a local stand-in for the API the
 * document describes, until interrupted. Prints where it listens, then one line per request.
 */
export async function mockCommand({ args, values, io, signal }: Invocation): Promise<void> {
  const [file] = args;
  const portText = String(values.port ?? '0');
  if (!/^\d+$/.test(portText) || Number(portText) > 65_535)
    throw new UsageError(`--port must be a port number (0 for a free one), not '${portText}'`);
  const document = await loadOpenApiDocument(file!);
  let server: Awaited<ReturnType<typeof startMockServer>>;
  try {
    server = await startMockServer(document, { port: Number(portText), host: String(values.host ?? '127.0.0.1') });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw portInUse(portText);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new UsageError(`--host ${String(values.host)}: not an address of this machine`);
    throw error;
  }
  io.stdout.write(`plugboard mock: ${server.operations} operations of ${file} at ${server.url} (Ctrl+C stops it)\n`);
  let shown = 0;
  const show = () => {
    for (; shown < server.requests.length; shown += 1) {
      const request = server.requests[shown]!;
      io.stderr.write(
        `${request.method} ${request.path} ${request.status}${request.operationId ? ` ${request.operationId}` : ''}\n`,
      );
    }
  };
  const timer = setInterval(show, 200);
  try {
    if (!signal.aborted) await once(signal, 'abort');
  } finally {
    clearInterval(timer);
    show();
    await server.close();
  }
}
