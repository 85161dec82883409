import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import {
  DESCRIPT_OPENAPI,
  linkDependencies,
  recordAsReadmeSays,
  scaffoldFromOpenApi,
  signInAsReadmeSays,
  startMock,
  suiteFailures,
  tsc,
} from './scaffold-support.js';
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

/**
 * The same with Box's document (test/documents/box-openapi.json), whose connector signs in with
 * OAuth2: its README builds, starts the mock (with the stand-in authorization server beside it),
 * signs in once there, and records on the signed-in connection: the events, paged by
 * stream_position, read in three pages of 500 and then, from the first run's checkpoint, only
 * the three added since.
 */
it("Box's scaffold signs in at plugboard mock's stand-in, records its paged incremental events and passes the standard suite", async () => {
  const document = join(import.meta.dirname, 'documents', 'box-openapi.json');
  const dir = await scaffoldFromOpenApi('box', document, ['get_events', 'get_folders_id_items', 'get_users']);
  expect(await readFile(join(dir, 'src', 'index.ts'), 'utf8')).toContain('auth: oauth2AuthorizationCode({');
  await linkDependencies(dir);
  await tsc(dir, '-p', 'tsconfig.build.json');

  // The README's mock line, on a free port; 1200 events are three pages at Box's most, 500.
  const readme = await readFile(join(dir, 'README.md'), 'utf8');
  const mockLine = /^npx plugboard mock (\S+) --port 4010(.*)$/m.exec(readme);
  expect(mockLine?.[2]).toBe(' --grow 3');
  const { url, stop } = await startMock(dir, [mockLine![1]!, ...mockLine![2]!.trim().split(' '), '--records', '1200']);
  // The default state folder is the recording's: the sign-in is where every record command looks.
  const env = { PLUGBOARD_STATE: join(dir, '.record-state') };
  try {
    // Printed as JSON, stdout being no terminal.
    expect(JSON.parse(await signInAsReadmeSays(dir, new URL(url).origin, env))).toMatchObject({
      connector: 'box',
      connection: 'default',
      scheme: 'oauth2_authorization_code',
    });
    expect(await recordAsReadmeSays(dir, 'http://127.0.0.1:4010/2.0', url, env)).toEqual([
      'events.get --state .record-state',
      'events.get-since --state .record-state',
      'folders_id_items.get',
      'users.get',
    ]);
  } finally {
    await stop();
  }
  const pagesOf = async (scenario: string) => {
    const fixture = JSON.parse(await readFile(join(dir, 'test', 'fixtures', `${scenario}.json`), 'utf8'));
    return (fixture.calls as Array<{ response: { body: { entries: Array<{ event_id: string }> } } }>).map((call) =>
      call.response.body.entries.map((event) => event.event_id),
    );
  };
  const first = await pagesOf('events.get');
  expect(first.map((page) => page.length)).toEqual([500, 500, 200]);
  // The second run asks from 1 ms before the checkpoint: the event at it comes again (and the read drops it), then the three new.
  const since = (await pagesOf('events.get-since')).flat();
  expect(since.filter((id) => first.flat().includes(id))).toEqual([first.flat().at(-1)]);
  expect(since.filter((id) => !first.flat().includes(id))).toHaveLength(3);
  expect(await suiteFailures(dir)).toBe('');
}, 180_000);
