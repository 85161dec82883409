import { fileURLToPath } from 'node:url';
import { shop, startShopProvider } from '@plugboard/example-connector';
import type { Connector } from '@plugboard/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editDistance, nearest } from '../src/did-you-mean.js';
import { runCli } from '../src/index.js';
import { bufferIo, PACK, TOKEN } from './support.js';

const pack: ReadonlyMap<string, Connector> = new Map([...PACK, ['shop', shop]]);

let server: Awaited<ReturnType<typeof startShopProvider>>;
beforeAll(async () => {
  server = await startShopProvider({ token: TOKEN });
});
afterAll(async () => {
  await server.close();
});

/** A person at a terminal: stdout and stderr both are one. */
function terminal(env: Record<string, string> = {}) {
  const buffers = bufferIo(env, true);
  return { ...buffers, io: { ...buffers.io, stdout: { ...buffers.io.stdout, isTTY: true } } };
}

async function describeJson(argv: string[]) {
  const { io, stdout, stderr } = bufferIo();
  const code = await runCli(['describe', ...argv], io, { pack });
  expect(stderr()).toBe('');
  expect(code).toBe(0);
  return JSON.parse(stdout()) as Record<string, unknown>;
}

describe('plugboard describe', () => {
  it("lists a connector's actions with their mode, effect, approval and budget", async () => {
    const described = await describeJson(['shop']);
    expect(described).toMatchObject({ key: 'shop', name: shop.name, version: shop.version });
    const actions = described.actions as Array<Record<string, unknown>>;
    expect(actions.map((action) => action.key)).toEqual([
      'items.list',
      'jobs.run',
      'orders.create',
      'quotes.create',
      'refunds.create',
    ]);
    expect(actions.find((action) => action.key === 'orders.create')).toEqual({
      key: 'orders.create',
      label: expect.any(String),
      mode: 'destination',
      effect: { writes: true, idempotent: false, destructive: false },
      billable: true,
      approval: 'production',
      budget: { name: 'default', limit: 1000, per: 'second' },
    });
    expect(actions.find((action) => action.key === 'refunds.create')).toMatchObject({ approval: 'always' });
  });

  it("lists an action's inputs with types, whether required, defaults, examples and options", async () => {
    const list = await describeJson(['shop', 'items.list']);
    expect(list).toMatchObject({ connector: 'shop', key: 'items.list', mode: 'source', approval: 'none' });
    expect(list.inputs).toEqual([{ field: 'limit', type: 'integer 1..100', required: false, default: 3 }]);
    const order = await describeJson(['shop', 'orders.create']);
    expect(order.inputs).toEqual([
      { field: 'sku', type: 'string', required: true },
      { field: 'quantity', type: 'integer > 0', required: true },
    ]);
    // Examples given for the whole input are shown by field; a field with options says so.
    const edit = await describeJson(['descript', 'agent_edits.create']);
    const inputs = edit.inputs as Array<Record<string, unknown>>;
    expect(inputs.find((input) => input.field === 'prompt')).toMatchObject({
      type: 'string',
      required: true,
      examples: ['Remove filler words and add studio sound'],
    });
    expect(inputs.find((input) => input.field === 'project_id')).toMatchObject({ options: true });
    const quote = await describeJson(['insurance', 'hospital_cash_plus_quotes.create']);
    expect(quote.inputs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'applicant.date_of_birth', type: 'string (date)', required: true }),
        expect.objectContaining({ field: 'cause', type: '"illness" | "accidental_injury"' }),
      ]),
    );
  });

  it("takes one word in a connector package's folder as its action, or another connector's key", async () => {
    const cwd = fileURLToPath(new URL('../../../connectors/insurance', import.meta.url));
    const inFolder = async (argv: string[]) => {
      const { io, stdout, stderr } = bufferIo();
      const code = await runCli(['describe', ...argv], { ...io, cwd });
      return { code, stdout: stdout(), stderr: stderr() };
    };
    const action = await inFolder(['hospital_cash_plus_quotes.create']);
    expect(action.code).toBe(0);
    expect(JSON.parse(action.stdout)).toMatchObject({
      connector: 'insurance',
      key: 'hospital_cash_plus_quotes.create',
    });
    const connector = await inFolder(['insurance']);
    expect(JSON.parse(connector.stdout)).toMatchObject({ key: 'insurance', actions: expect.any(Array) });
    const misspelt = await inFolder(['hospital_cash_plus_quotes.craete']);
    expect(misspelt.code).toBe(2);
    expect(JSON.parse(misspelt.stderr).message).toContain('did you mean hospital_cash_plus_quotes.create?');
  });

  it('prints tables for a person at a terminal', async () => {
    const person = terminal();
    expect(await runCli(['describe', 'shop', 'items.list'], person.io, { pack })).toBe(0);
    const lines = person.stdout().split('\n');
    expect(lines[0]).toMatch(/^shop items\.list: /);
    expect(lines).toContain('  approval  none');
    expect(lines).toContain('  budget    default: 1000 per second');
    expect(lines).toContain('  INPUT  TYPE            REQUIRED  DEFAULT  EXAMPLE');
    expect(lines).toContain('  limit  integer 1..100  no        3');
    const connector = terminal();
    expect(await runCli(['describe', 'shop'], connector.io, { pack })).toBe(0);
    expect(connector.stdout()).toContain('  refunds.create  destination  writes, billable  always');
    expect(connector.stdout()).toContain("plugboard describe shop ACTION lists an action's inputs");
  });
});

describe('did you mean', () => {
  it('names the nearest action and connector, exits 2 and sends nothing', async () => {
    const action = terminal({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(['run', 'shop', 'itmes.list', '--base-url', server.url], action.io, { pack })).toBe(2);
    expect(action.stderr()).toBe(
      "plugboard: connector 'shop' has no action 'itmes.list'; did you mean items.list?\nhint: plugboard describe shop lists its actions and their inputs\n",
    );
    const program = bufferIo({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(['run', 'shop', 'orders.creat', '--base-url', server.url], program.io, { pack })).toBe(2);
    expect(JSON.parse(program.stderr())).toMatchObject({
      code: 'unknown_action',
      statusCode: 404,
      message: "connector 'shop' has no action 'orders.creat'; did you mean orders.create?",
    });
    const record = terminal({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(
      await runCli(['record', 'shop', 'orders.creat', '--scenario', 's', '--base-url', server.url], record.io, {
        pack,
      }),
    ).toBe(2);
    expect(record.stderr()).toContain('did you mean orders.create?');
    const connector = terminal({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(['describe', 'shpo'], connector.io, { pack })).toBe(2);
    expect(connector.stderr()).toMatch(/^plugboard: no connector 'shpo'; did you mean shop\?/);
    // Nothing near: every action is named instead.
    const far = terminal({ PLUGBOARD_CREDENTIAL: TOKEN });
    expect(await runCli(['describe', 'shop', 'zzz'], far.io, { pack })).toBe(2);
    expect(far.stderr()).toContain("has no action 'zzz'; it has items.list, orders.create");
    expect(server.requests).toEqual([]);
  });

  it('counts edits, a swap of neighbours as one, and takes only a near name', () => {
    expect(editDistance('rnu', 'run', 3)).toBe(1);
    expect(editDistance('itmes.list', 'items.list', 3)).toBe(1);
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
    expect(nearest('rnu', ['record', 'run', 'replay'])).toBe('run');
    expect(nearest('Descript', ['insurance', 'descript'])).toBe('descript');
    expect(nearest('zzz', ['run', 'record'])).toBeUndefined();
  });

  it('bounds what it compares: a huge word or a huge list is cut before any work', () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `name${i}`);
    expect(nearest('name1x', names)).toBe('name1');
    // Past the first names compared, nothing is looked at.
    expect(nearest('name99999', names)).not.toBe('name99999');
    expect(nearest('x'.repeat(1_000_000), ['x'.repeat(64)])).toBe('x'.repeat(64));
  });
});
