import { resolve } from 'node:path';
import { loadPack } from '@plugboard/runtime';
import { type Connector, createTransport, runAction } from '@plugboard/sdk';
import { parseActionArgs } from '../action-args.js';
import { loadCheckpoint, saveCheckpoint } from '../checkpoint-file.js';
import { type CliIo, writeJsonLine } from '../io.js';
import { createProgress } from '../progress.js';

/** The connectors of a plugin folder; the packages that failed to load are reported on stderr. */
async function pluginPack(dir: string, io: CliIo): Promise<ReadonlyMap<string, Connector>> {
  const { connectors, failed } = await loadPack(resolve(io.cwd, dir));
  for (const plugin of failed) writeJsonLine(io.stderr, { level: 'warn', message: `plugin ${plugin.package} not loaded: ${plugin.reason}` });
  return connectors;
}

/** `plugboard run`: records to stdout as JSON lines, progress on a terminal's stderr. */
export async function runCommand(argv: string[], io: CliIo, pack: ReadonlyMap<string, Connector>, signal: AbortSignal): Promise<void> {
  const args = await parseActionArgs(
    argv,
    { 'checkpoint-file': { type: 'string' }, plugins: { type: 'string' } },
    async (values) => (values.plugins ? pluginPack(values.plugins, io) : pack),
    io,
  );
  const checkpointFile = args.values['checkpoint-file'];
  const progress = createProgress(io.stderr);
  // Its own pool, closed at the end, so no idle keep-alive socket holds the process open.
  const transport = createTransport();
  let pages = 0;
  let records = 0;
  try {
    for await (const page of runAction(args.connector, args.action, {
      input: args.input,
      connection: args.connection,
      environment: args.environment,
      credential: args.credential,
      checkpoint: checkpointFile ? await loadCheckpoint(checkpointFile) : undefined,
      signal,
      transport,
      log: args.log,
      onProgress: (event) => progress.update(event),
    })) {
      for (const record of page.records) writeJsonLine(io.stdout, record);
      if (checkpointFile && page.checkpoint !== undefined) await saveCheckpoint(checkpointFile, page.checkpoint);
      pages += 1;
      records += page.records.length;
      progress.update({ label: `${args.action}: ${pages} page${pages === 1 ? '' : 's'}`, done: records });
    }
  } finally {
    progress.done();
    await transport.close();
  }
}
