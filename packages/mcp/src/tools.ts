import type { Action, Connector } from '@plugboard/sdk';
import { annotationsOf, catalogueEntry, needsApproval } from '@plugboard/sdk/host';
import { z } from 'zod';
import { toolName } from './tool-name.js';

/**
 * One MCP tool per action of the served connectors, in their catalogue entries' order: its name within
 * 64 characters, its description from the catalogue, its input schema from the action's zod input
 * (JSON Schema 2020-12) with the call's own arguments added (a source's `cursor`, a destination's
 * `idempotencyKey`, `approvalId` where the action can need an approval), its output schema from
 * the action's data type (a source answers one page of it), and all four hints from the action's
 * declared effect.
 */

export type JsonSchema = Record<string, unknown>;

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ActionTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  connector: Connector;
  action: Action;
}

/** The arguments a tool takes besides the action's input, which they are kept apart from. */
export const CALL_ARGUMENTS = ['cursor', 'idempotencyKey', 'approvalId'] as const;

const DEFS = '#/$defs/';

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    cycles: 'ref',
    reused: 'inline',
    target: 'draft-2020-12',
  }) as JsonSchema;
  // A named type comes out as a reference to its definition: a tool's schema is the type itself.
  const { $ref, $defs, ...own } = rest as { $ref?: unknown; $defs?: Record<string, JsonSchema> };
  const named =
    typeof $ref === 'string' && $ref.startsWith(DEFS) ? decodeURIComponent($ref.slice(DEFS.length)) : undefined;
  if (named === undefined || !$defs?.[named] || Object.keys(own).length > 0) return rest;
  const { [named]: root, ...others } = $defs;
  const inlined = JSON.parse(JSON.stringify(others).replaceAll(`"${$ref}"`, '"#"')) as Record<string, JsonSchema>;
  return { ...root, ...(Object.keys(inlined).length > 0 ? { $defs: inlined } : {}) };
};

/** The action's input schema as an object, with the call's own arguments beside its fields. */
function inputSchemaOf(action: Action): JsonSchema {
  const input = toSchema(action.input, 'input');
  const properties = { ...((input.properties as Record<string, unknown> | undefined) ?? {}) };
  for (const name of CALL_ARGUMENTS)
    if (name in properties)
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

function outputSchemaOf(action: Action): JsonSchema {
  const entity = toSchema(action.entity, 'output');
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

function describe(connector: Connector, action: Action, description: string | null): string {
  const text = description ?? action.label;
  const paging = action.direction === 'source' ? ' One page a call: pass nextCursor back as cursor for the next.' : '';
  return `${connector.name}: ${text}${paging}`;
}

/** The tools of the connectors' actions; `only` keeps those actions (`connector.action` or `action`). */
export function actionTools(connectors: readonly Connector[], only?: readonly string[]): ActionTool[] {
  const wanted = only === undefined ? undefined : new Set(only);
  const tools: ActionTool[] = [];
  for (const connector of connectors)
    for (const operation of catalogueEntry(connector).operations) {
      const action = connector.action(operation.key);
      if (!action) continue;
      if (wanted && !wanted.has(action.key) && !wanted.has(`${connector.key}.${action.key}`)) continue;
      tools.push({
        name: toolName(connector.key, action.key),
        description: describe(connector, action, operation.description),
        inputSchema: inputSchemaOf(action),
        outputSchema: outputSchemaOf(action),
        annotations: { title: action.label, ...annotationsOf(action) },
        connector,
        action,
      });
    }
  return tools;
}
