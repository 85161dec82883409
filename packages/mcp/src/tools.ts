import type { Connector } from '@plugboard/sdk';
import {
  type ActionToolDescription,
  actionToolDescriptions,
  type JsonSchema,
  needsApproval,
} from '@plugboard/sdk/host';
import { toolName } from './tool-name.js';

/**
 * One MCP tool per action of the served connectors, in their catalogue entries' order: its name within
 * 64 characters, its description from the catalogue, its input schema from the action's zod input
 * (JSON Schema 2020-12) with the call's own arguments added (a source's `cursor`, a destination's
 * `idempotencyKey`, `approvalId` where the action can need an approval), its output schema from
 * the action's data type (a source answers one page of it), and all four hints from the action's
 * declared effect. A connector imported here is described here; one running in a plugin's process
 * was described there (`DescribedTools`): both take the same path from the description on.
 */

export type { JsonSchema };

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A connector as described where its code runs (a plugin's process, `startPlugins(dir, { tools: true })`). */
export interface DescribedTools {
  key: string;
  name: string;
  tools: readonly ActionToolDescription[];
}

export interface ActionTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  connector: { key: string; name: string };
  action: ActionToolDescription;
}

/** The arguments a tool takes besides the action's input, which they are kept apart from. */
export const CALL_ARGUMENTS = ['cursor', 'idempotencyKey', 'approvalId'] as const;

/** The action's input schema as an object, with the call's own arguments beside its fields. */
function inputSchemaOf(action: ActionToolDescription): JsonSchema {
  const input = action.inputSchema;
  const properties = { ...((input.properties as Record<string, unknown> | undefined) ?? {}) };
  for (const name of CALL_ARGUMENTS)
    if (Object.hasOwn(properties, name))
      throw new TypeError(`${action.key}: an input field named ${name} would shadow the tool's own argument`);
  if (action.direction === 'source')
    properties.cursor = { type: 'string', description: 'The nextCursor of the page before; none for the first page.' };
  else
    properties.idempotencyKey = {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'Repeating a call with the same key returns its first result without writing again.',
    };
  if (needsApproval(action, 'production'))
    properties.approvalId = {
      type: 'string',
      description: 'The id of the approval a person other than the caller gave for exactly this call.',
    };
  return { ...input, type: 'object', properties };
}

function outputSchemaOf(action: ActionToolDescription): JsonSchema {
  const entity = action.entitySchema;
  if (action.direction === 'destination')
    return entity.type === 'object' ? entity : { type: 'object', properties: { result: entity } };
  const { $defs, ...record } = entity;
  return {
    type: 'object',
    properties: {
      records: { type: 'array', items: record },
      nextCursor: { type: ['string', 'null'], description: 'Pass as cursor for the next page; null on the last.' },
    },
    required: ['records', 'nextCursor'],
    ...($defs === undefined ? {} : { $defs }),
  };
}

function describe(connector: DescribedTools, action: ActionToolDescription): string {
  const text = action.description ?? action.label;
  const paging = action.direction === 'source' ? ' One page a call: pass nextCursor back as cursor for the next.' : '';
  return `${connector.name}: ${text}${paging}`;
}

/** An imported connector described here; a described one as it is. */
const describedTools = (given: Connector | DescribedTools): DescribedTools =>
  'tools' in given ? given : { key: given.key, name: given.name, tools: actionToolDescriptions(given) };

/**
 * The tools of the connectors' actions: connectors imported here, or described by their plugins'
 * processes. `only` keeps those actions (`connector.action` or `action`).
 */
export function actionTools(
  connectors: ReadonlyArray<Connector | DescribedTools>,
  only?: readonly string[],
): ActionTool[] {
  const wanted = only === undefined ? undefined : new Set(only);
  const tools: ActionTool[] = [];
  for (const given of connectors) {
    const connector = describedTools(given);
    for (const action of connector.tools) {
      if (wanted && !wanted.has(action.key) && !wanted.has(`${connector.key}.${action.key}`)) continue;
      tools.push({
        name: toolName(connector.key, action.key),
        description: describe(connector, action),
        inputSchema: inputSchemaOf(action),
        outputSchema: outputSchemaOf(action),
        annotations: { title: action.label, ...action.annotations },
        connector: { key: connector.key, name: connector.name },
        action,
      });
    }
  }
  return tools;
}
