import { z } from 'zod';
import { catalogueEntry } from './catalogue-entry.js';
import { checkpointDeclaration } from './checkpoint.js';
import { type Action, type Approval, annotationsOf, approvalOf, type ToolAnnotations } from './definition/action.js';
import type { Connector } from './definition/connector.js';

/**
 * What a tool server (an MCP server) needs of each action, as plain JSON data: computed where the
 * connector's code is, in the host's process for an imported connector, in the plugin's own
 * process for an isolated one, so the host never needs the zod schemas themselves.
 */

export type JsonSchema = Record<string, unknown>;

/** One action as a tool server needs it: plain JSON data, which may cross a process boundary. */
export interface ActionToolDescription {
  key: string;
  label: string;
  /** The catalogue's description of the action; null when it declares none. */
  description: string | null;
  direction: 'source' | 'destination';
  /** The action's input as JSON Schema 2020-12 (what it accepts). */
  inputSchema: JsonSchema;
  /** The action's data type as JSON Schema 2020-12 (what it gives): a source's record, a destination's result. */
  entitySchema: JsonSchema;
  /** The four hints, from the action's declared effect (`annotationsOf`). */
  annotations: ToolAnnotations;
  billable: boolean;
  /** The approval in force (`approvalOf`). */
  approval: Approval;
  /** A source's checkpoint version, which a stored checkpoint (a tool's cursor) carries. */
  checkpointVersion?: number;
}

const DEFS = '#/$defs/';

/** A zod schema as JSON Schema 2020-12, without the dialect; a named type is the type itself, not a reference to it. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
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
}

function describeAction(action: Action, description: string | null): ActionToolDescription {
  return {
    key: action.key,
    label: action.label,
    description,
    direction: action.direction,
    inputSchema: jsonSchemaOf(action.input, 'input'),
    entitySchema: jsonSchemaOf(action.entity, 'output'),
    annotations: annotationsOf(action),
    billable: action.billable ?? false,
    approval: approvalOf(action),
    ...(action.direction === 'source' ? { checkpointVersion: checkpointDeclaration(action.incremental).version } : {}),
  };
}

/** Each action of the connector as a tool server needs it, in its catalogue entry's order. */
export function actionToolDescriptions(connector: Connector): ActionToolDescription[] {
  const described: ActionToolDescription[] = [];
  for (const operation of catalogueEntry(connector).operations) {
    const action = connector.action(operation.key);
    if (action) described.push(describeAction(action, operation.description));
  }
  return described;
}
