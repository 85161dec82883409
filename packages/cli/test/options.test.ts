import { type DescriptSimulator, startDescriptSimulator } from '@plugboard/simulator-descript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '@plugboard/sdk';
import { exitCodeOf } from '../src/failure.js';
import { runCli } from '../src/index.js';
import { bufferIo, PACK } from './support.js';

/** `plugboard options` against the Descript simulator, started on a free port of 127.0.0.1. */

let sim: DescriptSimulator;
beforeEach(async () => {
  sim = await startDescriptSimulator({ port: 0, seed: 3, size: 60 });
});
afterEach(async () => {
  await sim.close();
});

function lines(text: string): Array<Record<string, unknown>> {
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function options(args: string[]) {
  const out = bufferIo({ PLUGBOARD_CREDENTIAL: sim.token });
  const code = await runCli(['options', 'descript', ...args, '--base-url', sim.url], out.io, { pack: PACK });
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

describe('plugboard options', () => {
  it('prints a page of options as JSON lines, then the cursor of the next page', async () => {
    const first = await options(['media_imports.create', 'project_id']);
    expect(first.code).toBe(0);
    const printed = lines(first.stdout);
    const cursor = printed.at(-1);
    expect(cursor).toEqual({ nextCursor: expect.any(String) });
    expect(printed.slice(0, -1)).toHaveLength(50);
    for (const item of printed.slice(0, -1))
      expect(item).toMatchObject({ value: expect.any(String), label: expect.any(String) });

    const rest = await options(['media_imports.create', 'project_id', '--cursor', String(cursor!.nextCursor)]);
    expect(rest.code).toBe(0);
    // 60 projects: the last 10, and no cursor after them.
    expect(lines(rest.stdout)).toHaveLength(10);

    const word = String(printed[0]!.label).split(' ')[0]!;
    const searched = await options(['agent_edits.create', 'project_id', '--search', word]);
    expect(lines(searched.stdout).every((item) => String(item.label).includes(word))).toBe(true);
    expect(sim.requests.at(-1)?.query).toMatchObject({ name: word });
  });

  it('never prints a secret the provider echoes in a label', async () => {
    // A project named after the credential, as a careless or hostile drive could hold.
    const made = bufferIo({ PLUGBOARD_CREDENTIAL: sim.token });
    const input = JSON.stringify({
      project_name: `Leak ${sim.token}`,
      add_media: { 'a.mp4': { url: 'https://media.example.com/a.mp4' } },
    });
    const run = ['run', 'descript', 'media_imports.create', '--input', input, '--base-url', sim.url];
    expect(await runCli(run, made.io, { pack: PACK })).toBe(0);

    const listed = await options(['media_imports.create', 'project_id', '--search', 'Leak']);
    expect(listed.code).toBe(0);
    expect(lines(listed.stdout)).toEqual([{ value: expect.any(String), label: expect.stringContaining('Leak ') }]);
    expect(listed.stdout + listed.stderr).not.toContain(sim.token);
  });

  it('exits 2 for a field without options or no field, 4 when the provider refuses the credential', async () => {
    const none = await options(['media_imports.create', 'project_name']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no options for input field 'project_name'");
    const misspelt = await options(['media_imports.create', 'project_di']);
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toContain('fields with options: project_id; did you mean project_id?');
    expect((await options(['media_imports.create'])).code).toBe(2);
    expect((await options(['media_imports.create', 'project_id', '--search', 'x'.repeat(201)])).code).toBe(2);
    const before = sim.requests.length;
    expect(before).toBe(0);

    const refused = bufferIo({ PLUGBOARD_CREDENTIAL: 'not-the-token-1234' });
    const args = ['options', 'descript', 'media_imports.create', 'project_id', '--base-url', sim.url];
    expect(await runCli(args, refused.io, { pack: PACK })).toBe(4);
    expect(refused.stdout()).toBe('');
  });

  it("exits 2 for a plugin's refusal of an unknown action or field, which comes back as a failure of its code", () => {
    expect(
      exitCodeOf(
        new ConnectorError("action 'a.b' has no options for input field 'c'", {
          code: 'unknown_action',
          retryable: false,
          platformStatus: 404,
        }),
      ),
    ).toBe(2);
  });
});
