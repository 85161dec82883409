import { excerpt } from '@plugboard/sdk';
import { type ActionToolDescription, formatJsonPath, type JsonPath, jsonProblem } from '@plugboard/sdk/host';
import { z } from 'zod';
import { PluginLoadError } from './manifest.js';
import type { DescribedConnector } from './protocol.js';

/**
 * A plugin's description as the host takes it. Whatever its process sends is hostile (the
 * plugin's code shares that process and can rewrite what it writes), so the shape is checked
 * here, every text and schema is bounded, and the tools, when the host asked for them, describe
 * exactly the actions. A refusal names the action and the field.
 */

/** The largest JSON Schema a plugin may describe an action's input or data type with, in bytes of JSON. */
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** Deep enough for an input nested 64 levels (each level is `properties` and the field); JSON.stringify walks it. */
const MAX_SCHEMA_DEPTH = 256;
const MAX_KEY_CHARS = 200;
const MAX_LABEL_CHARS = 1000;
const MAX_DESCRIPTION_CHARS = 16_000;

/** A plugin's description refused: `action` is the action's key (`#n` when it has none), `field` the path in the description. */
export class PluginDescriptionError extends PluginLoadError {
  readonly action: string | undefined;
  readonly field: string;

  constructor(packageName: string, action: string | undefined, field: string, problem: string) {
    const whose = action === undefined ? 'its description' : `the description of action '${action}'`;
    super(packageName, `${whose} was refused: ${field} ${problem}`);
    this.name = 'PluginDescriptionError';
    this.action = action;
    this.field = field;
  }
}

const key = z.string().min(1).max(MAX_KEY_CHARS);
const label = z.string().min(1).max(MAX_LABEL_CHARS);
const direction = z.enum(['source', 'destination']);
const schema = z.record(z.string(), z.unknown());

const Action = z.strictObject({ key, label, direction });

const Tool = z.strictObject({
  key,
  label,
  description: z.string().max(MAX_DESCRIPTION_CHARS).nullable(),
  direction,
  inputSchema: schema,
  entitySchema: schema,
  annotations: z.strictObject({
    readOnlyHint: z.boolean(),
    destructiveHint: z.boolean(),
    idempotentHint: z.boolean(),
    openWorldHint: z.boolean(),
  }),
  billable: z.boolean(),
  approval: z.enum(['none', 'production', 'always']),
  checkpointVersion: z.int().min(1).max(1000).optional(),
});

const Described = z.strictObject({
  key,
  name: label,
  connectorVersion: key,
  actions: z.array(Action),
  tools: z.array(Tool).optional(),
  // Each scheme is checked when a run uses it (token-asks.ts).
  oauth2: z.array(z.unknown()).optional(),
});

/** The action a path into the description is about, by its key when it has a usable one. */
function actionAt(raw: unknown, path: JsonPath): string | undefined {
  const [list, index] = path;
  if ((list !== 'actions' && list !== 'tools') || typeof index !== 'number') return undefined;
  const found = (raw as Record<string, Array<{ key?: unknown }>>)[list]?.[index]?.key;
  return typeof found === 'string' && found.length > 0 ? excerpt(found, MAX_KEY_CHARS) : `#${index + 1}`;
}

/** Each tool's schemas: plain JSON of a bounded depth (before anything walks them), then of a bounded size. */
function checkSchemas(plugin: string, tools: readonly ActionToolDescription[]): void {
  tools.forEach((tool, index) => {
    for (const field of ['inputSchema', 'entitySchema'] as const) {
      const at = `tools[${index}].${field}`;
      const problem = jsonProblem(tool[field], MAX_SCHEMA_DEPTH);
      if (problem)
        throw new PluginDescriptionError(plugin, tool.key, formatJsonPath(problem.path, at), excerpt(problem.message));
      const bytes = Buffer.byteLength(JSON.stringify(tool[field]));
      if (bytes > MAX_SCHEMA_BYTES)
        throw new PluginDescriptionError(
          plugin,
          tool.key,
          at,
          `is ${bytes.toLocaleString('en')} bytes of JSON, over the ${MAX_SCHEMA_BYTES.toLocaleString('en')} a schema may take`,
        );
    }
  });
}

/** The tools describe the actions, each once, in the same direction. */
function checkTools(plugin: string, described: DescribedConnector & { tools: ActionToolDescription[] }): void {
  const actions = new Map<string, string>();
  described.actions.forEach(({ key: name, direction: way }, index) => {
    if (actions.has(name))
      throw new PluginDescriptionError(plugin, name, `actions[${index}].key`, 'names an action described before');
    actions.set(name, way);
  });
  const seen = new Set<string>();
  described.tools.forEach((tool, index) => {
    if (actions.get(tool.key) !== tool.direction || seen.has(tool.key))
      throw new PluginDescriptionError(
        plugin,
        tool.key,
        `tools[${index}]`,
        'describes no action of the connector, or one in another direction or twice',
      );
    seen.add(tool.key);
  });
  const missing = [...actions.keys()].find((name) => !seen.has(name));
  if (missing !== undefined) throw new PluginDescriptionError(plugin, missing, 'tools', 'has no tool for the action');
}

/**
 * The description a plugin's process sent, checked; `tools`: the host asked for each action's
 * tool (a tool the host did not ask for is dropped).
 */
export function readDescription(plugin: string, raw: unknown, tools: boolean): DescribedConnector {
  const parsed = Described.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length === 0 ? 'connector' : formatJsonPath(issue.path as JsonPath);
    throw new PluginDescriptionError(plugin, actionAt(raw, issue.path as JsonPath), field, excerpt(issue.message));
  }
  const { tools: given, ...described } = parsed.data;
  if (!tools) return described;
  if (given === undefined) throw new PluginDescriptionError(plugin, undefined, 'tools', 'are missing');
  checkSchemas(plugin, given);
  const withTools = { ...described, tools: given };
  checkTools(plugin, withTools);
  return withTools;
}
