import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { DESCRIPT_OPENAPI, linkDependencies, startMock, suiteFailures, tsc } from './scaffold-support.js';
import { bufferIo } from './support.js';

/**
 * As an author would: `plugboard new --from-openapi`, build, `plugboard mock` on a free port,
 * then `plugboard record` the list's first run, which takes three pages, and its incremental
 * second run from the first's checkpoint, which reads only the records added since; the
 * scaffold's standard suite passes on what was recorded.
 */

it('a scaffolded connector records a three-page read and its incremental second run against plugboard mock', async () => {
  const cwd = await mkdtemp(join(tmpdir(), 'plugboard-new-mock-'));
  const created = bufferIo();
  const scaffold = ['new', 'projects', '--from-openapi', DESCRIPT_OPENAPI, '--operations', 'listProjects'];
  expect(await runCli(scaffold, { ...created.io, cwd }), created.stderr()).toBe(0);
  const dir = join(cwd, 'projects');
  await linkDependencies(dir);
  await tsc(dir, '-p', 'tsconfig.build.json');

  // 250 projects at 100 a page (the document's maximum) are three pages; three are added after a read to the end.
  const { url, stop } = await startMock(dir, ['openapi.yaml', '--grow', '3']);
  try {
    // The README's commands, against the stand-in's address.
    const readme = await readFile(join(dir, 'README.md'), 'utf8');
    const commands = [...readme.matchAll(/^npx plugboard (record projects\.list .*) --base-url \S+$/gm)].map((line) =>
      line[1]!.split(' '),
    );
    expect(commands.map((argv) => argv.join(' '))).toEqual([
      "record projects.list --input '{}' --scenario projects.list --state .record-state",
      "record projects.list --input '{}' --scenario projects.list-since --state .record-state",
    ]);
    const recorded: Array<{ ids: string[]; summary: string }> = [];
    for (const argv of commands) {
      const run = bufferIo({ PLUGBOARD_CREDENTIAL: 'stand-in-token' });
      const args = [...argv.map((word) => word.replace(/^'(.*)'$/, '$1')), '--base-url', url, '--connector', dir];
      expect(await runCli(args, { ...run.io, cwd: dir }), run.stderr()).toBe(0);
      recorded.push({
        ids: run
          .stdout()
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { id: string }).id),
        summary: /\(\d+ calls, [^)]*\)/.exec(run.stderr())?.[0] ?? run.stderr(),
      });
    }
    const [first, second] = recorded;
    expect(first!.summary).toBe('(3 calls, 250 records in 3 pages)');
    expect(new Set(first!.ids).size).toBe(250);
    // Only the three projects added since: the one at the checkpoint's instant came back and was dropped.
    expect(second!.summary).toBe('(1 calls, 3 records in 1 pages)');
    expect(second!.ids.filter((id) => first!.ids.includes(id))).toEqual([]);
  } finally {
    await stop();
  }

  // The standard suite replays both, the second from the first's checkpoint.
  expect(await suiteFailures(dir)).toBe('');
}, 120_000);
