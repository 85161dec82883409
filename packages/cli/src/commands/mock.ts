import { once } from 'node:events';
import { resolve } from 'node:path';
import { excerpt } from '@plugboard/sdk';
import { loadOpenApiDocument } from '../openapi-document.js';
import { MAX_RECORDS, startMockServer } from '../mock/server.js';
import type { Invocation } from '../invocation.js';
import { standInLines, standInPlan } from './mock-oauth.js';
import { portInUse, portOption, UsageError } from '../usage.js';

/** A whole number option between 0 and `max`. */
function count(option: string, value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const text = String(value);
  if (!/^\d{1,7}$/.test(text) || Number(text) > max)
    throw new UsageError(`${option} must be a whole number from 0 to ${max}, not '${excerpt(text)}'`);
  return Number(text);
}

/**
 * `plugboard mock <openapi-file> [--port N] [--host H] [--records N] [--grow K] [--seed S]`: a
 * local stand-in for the API the document describes, until interrupted, and for the OAuth2
 * authorization server of the connector named or here (mock-oauth.ts). Prints where it
 * listens and how each list operation pages, then one line per request.
 */
export async function mockCommand(invocation: Invocation): Promise<void> {
  const { args, values, io, signal } = invocation;
  const [file] = args;
  const { port, text: portText } = portOption(values.port);
  const records = count('--records', values.records, 250, MAX_RECORDS);
  const grow = count('--grow', values.grow, 0, MAX_RECORDS);
  const seed = String(values.seed ?? '1');
  // A relative path is the caller's, as with every other command.
  const document = await loadOpenApiDocument(resolve(io.cwd, file!));
  const standIn = await standInPlan(invocation);
  let server: Awaited<ReturnType<typeof startMockServer>>;
  try {
    server = await startMockServer(document, {
      port,
      host: String(values.host ?? '127.0.0.1'),
      records,
      grow,
      seed,
      ...(standIn ? { oauth: standIn.oauth } : {}),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw portInUse(portText);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new UsageError(`--host ${String(values.host)}: not an address of this machine`);
    throw error;
  }
  io.stdout.write(`plugboard mock: ${server.operations} operations of ${file} at ${server.url} (Ctrl+C stops it)\n`);
  if (standIn) io.stdout.write(standInLines(standIn, server));
  for (const list of server.lists)
    io.stdout.write(
      `  ${list.method} ${list.path}: ${records} records${grow ? ` (+${grow} before each later read)` : ''}; ${list.paging}\n`,
    );
  for (const skipped of server.skipped)
    io.stdout.write(`  ${skipped.method} ${skipped.path}: not served; ${skipped.reason}\n`);
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
