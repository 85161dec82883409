import { actionToolDescriptions } from '@plugboard/sdk/host';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type IsolationOptions,
  loadPlugin,
  MAX_SCHEMA_BYTES,
  PluginDescriptionError,
  PluginLoadError,
  startPlugin,
} from '../src/index.js';
import { npmFolder, type PluginFolder } from './support/plugins.js';

/**
 * A plugin describes its actions as a tool server needs them (schemas, hints, approval, paging)
 * in its own process, when the host asks: the host takes that description as hostile, checks its
 * shape, bounds every schema, and refuses a plugin whose description breaks either, naming the
 * action and the field.
 */

/** A connector with a versioned incremental source and a billable destination; `input` is the destination's input. */
function tooledSource(top = '', input = 'z.object({ name: Name, size: z.number().int().min(1).default(1) })'): string {
  return `
${top}
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
const Name = z.string().min(1).meta({ id: 'ThingName', description: 'What the thing is called' });
const Thing = z.object({ id: z.string(), name: Name, updated_at: z.string() }).meta({ id: 'TooledThing' });
const checkpoint = { version: 2, schema: z.object({ after: z.string() }), migrate: { 1: (old) => ({ after: old.since }) } };
export default defineConnector({
  key: 'tooled', name: 'Tooled', version: '1.4.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'A fixture.', auth: bearerToken(), baseUrl: 'http://127.0.0.1:9',
  actions: [
    defineAction({ key: 'things.list', label: 'List things', description: 'Every thing, newest last.', direction: 'source',
      entity: Thing, input: z.object({ limit: z.number().int().max(50).optional() }),
      incremental: { cursorField: 'updated_at', checkpoint }, async *read() { yield { records: [] }; } }),
    defineAction({ key: 'things.create', label: 'Create a thing', direction: 'destination', entity: Thing,
      effect: { writes: true, idempotent: false, destructive: false }, billable: true,
      input: ${input}, async write() { return { id: '1', name: 'a', updated_at: '2026-01-01' }; } }),
  ],
});
`;
}

/** Code that rewrites the description its own process sends (as any code in that process can), with \`c\` the connector's. */
function rewriting(rewrite: string): string {
  return `import * as net from 'node:net';
const original = net.Socket.prototype._writeGeneric;
net.Socket.prototype._writeGeneric = function (writev, data, ...rest) {
  const text = writev ? '' : String(data);
  if (text.includes('"type":"described"')) {
    const message = JSON.parse(text);
    ((c) => { ${rewrite} })(message.connector);
    data = JSON.stringify(message) + '\\n';
  }
  return original.call(this, writev, data, ...rest);
};`;
}

const CASES: Array<{ name: string; rewrite: string; action: string | undefined; field: string; says: RegExp }> = [
  {
    name: 'connector-sideways',
    rewrite: `c.actions[1].direction = 'sideways';`,
    action: 'things.create',
    field: 'actions[1].direction',
    says: /expected one of "source"\|"destination"/,
  },
  {
    name: 'connector-stringly',
    rewrite: `c.tools[0].inputSchema = 'not a schema';`,
    action: 'things.create',
    field: 'tools[0].inputSchema',
    says: /expected record/,
  },
  {
    name: 'connector-hinting',
    rewrite: `c.tools[1].annotations.readOnlyHint = 'yes';`,
    action: 'things.list',
    field: 'tools[1].annotations.readOnlyHint',
    says: /expected boolean/,
  },
  {
    name: 'connector-deep',
    rewrite: `let deep = {}; for (let i = 0; i < 300; i += 1) deep = { items: deep }; c.tools[1].entitySchema = deep;`,
    action: 'things.list',
    field: `tools[1].entitySchema${'.items'.repeat(256)}`,
    says: /nested deeper than 256 levels/,
  },
  {
    name: 'connector-proto',
    rewrite: `c.tools[0].inputSchema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}');`,
    action: 'things.create',
    field: 'tools[0].inputSchema.properties.__proto__',
    says: /__proto__/,
  },
  {
    name: 'connector-ghost',
    rewrite: `c.tools[1].key = 'ghosts.list';`,
    action: 'ghosts.list',
    field: 'tools[1]',
    says: /describes no action of the connector/,
  },
  {
    name: 'connector-toolless',
    rewrite: `delete c.tools;`,
    action: undefined,
    field: 'tools',
    says: /are missing/,
  },
];

let folder: PluginFolder;
beforeAll(async () => {
  const wordy = `z.object({ text: z.string().describe('${'w'.repeat(MAX_SCHEMA_BYTES)}') })`;
  folder = await npmFolder([
    { name: 'connector-tooled', entry: tooledSource() },
    { name: 'connector-wordy', entry: tooledSource('', wordy) },
    ...CASES.map(({ name, rewrite }) => ({ name, entry: tooledSource(rewriting(rewrite)) })),
  ]);
});
afterAll(async () => {
  await folder.cleanup();
});

describe("a plugin's tools", () => {
  test('are described in its own process when asked, exactly as the host describes the connector imported', async () => {
    const spec = { name: 'connector-tooled', from: folder.dir };
    const plugin = await startPlugin(spec, { tools: true });
    await plugin.close();
    const imported = await loadPlugin(spec);
    expect(plugin.tools).toEqual(actionToolDescriptions(imported.connector));
    expect(
      plugin.tools?.map(({ key, direction, billable, approval, checkpointVersion }) => ({
        key,
        direction,
        billable,
        approval,
        checkpointVersion,
      })),
    ).toEqual([
      {
        key: 'things.create',
        direction: 'destination',
        billable: true,
        approval: 'production',
        checkpointVersion: undefined,
      },
      { key: 'things.list', direction: 'source', billable: false, approval: 'none', checkpointVersion: 2 },
    ]);
    // A named type inside is a reference to its definition, which keeps its description.
    expect(plugin.tools?.[0]?.inputSchema).toMatchObject({
      type: 'object',
      properties: { name: { $ref: '#/$defs/ThingName' } },
      $defs: { ThingName: { type: 'string', minLength: 1, description: 'What the thing is called' } },
    });
    // Not asked for, they are not computed.
    const plain = await startPlugin(spec);
    await plain.close();
    expect(plain.tools).toBeUndefined();
    expect(plain.actions).toEqual(plugin.actions);
  });

  test('a schema over the bound is refused, naming the action and the field; unasked, the plugin loads', async () => {
    const spec = { name: 'connector-wordy', from: folder.dir };
    const refused = startPlugin(spec, { tools: true });
    await expect(refused).rejects.toBeInstanceOf(PluginDescriptionError);
    await expect(refused).rejects.toMatchObject({
      package: 'connector-wordy',
      action: 'things.create',
      field: 'tools[0].inputSchema',
      reason: expect.stringMatching(
        /^the description of action 'things\.create' was refused: tools\[0\]\.inputSchema is 65,\d{3} bytes of JSON, over the 65,536 a schema may take$/,
      ),
    });
    const plain = await startPlugin(spec);
    await plain.close();
    expect(plain.key).toBe('tooled');
  });

  test.each(CASES)(
    'a description the plugin rewrote ($name) is refused, naming the action and the field',
    async ({ name, action, field, says }) => {
      // The direction is checked whether or not tools were asked for.
      const options: IsolationOptions = name === 'connector-sideways' ? {} : { tools: true };
      const refused = startPlugin({ name, from: folder.dir }, options);
      await expect(refused).rejects.toBeInstanceOf(PluginLoadError);
      await expect(refused).rejects.toMatchObject({ name: 'PluginDescriptionError', action, field });
      await expect(refused).rejects.toMatchObject({ reason: expect.stringMatching(says) });
      await expect(refused).rejects.toMatchObject({
        reason: expect.stringContaining(
          action === undefined ? 'its description was refused' : `the description of action '${action}' was refused`,
        ),
      });
    },
  );
});
