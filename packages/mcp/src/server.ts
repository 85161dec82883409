import { type ListToolsResult, Server, type ServerContext } from '@modelcontextprotocol/server';
import { excerpt, type ProgressUpdate } from '@plugboard/sdk';
import type { ExecutionEvent } from '@plugboard/sdk/host';
import { callTool, type ToolHost, type ToolResult } from './call.js';
import { elicitApproval, elicitedApproval } from './elicit.js';
import { searchTools } from './search.js';
import type { ActionTool } from './tools.js';

/**
 * The MCP server of a set of action tools: `tools/list` gives one tool per action, `tools/call`
 * runs one through the executor. With more tools than the client takes (`maxTools`) it offers two
 * instead: `search_actions` and `call_action`, which calls by name through the very same path.
 * A fresh server serves each connection (stdio) or each request (HTTP, stateless).
 */

export interface ServerOptions extends ToolHost {
  tools: readonly ActionTool[];
  /** The most tools listed one per action; past it, search and call. Default 40. */
  maxTools?: number | undefined;
  /** The caller of a request: the access token's subject over HTTP, a fixed name over stdio. */
  callerOf(context: ServerContext): string;
  name?: string;
  version?: string;
}

export const DEFAULT_MAX_TOOLS = 40;
export const SEARCH_TOOL = 'search_actions';
export const CALL_TOOL = 'call_action';

const META_TOOLS = [
  {
    name: SEARCH_TOOL,
    description:
      'Searches the actions this server can run: each match with its tool name, description, input schema and hints.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', maxLength: 200, description: 'Words to look for; empty lists the first ones.' },
      },
    },
    annotations: {
      title: 'Search actions',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  },
  {
    name: CALL_TOOL,
    description: 'Calls an action found by search_actions, by its tool name, with its arguments.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 64 }, arguments: { type: 'object' } },
      required: ['name'],
    },
    annotations: {
      title: 'Call an action',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
];

const listedTool = (tool: ActionTool) => ({
  name: tool.name,
  description: tool.description,
  inputSchema: tool.inputSchema,
  outputSchema: tool.outputSchema,
  annotations: tool.annotations,
});

const unknownTool = (name: string): ToolResult => ({
  content: [{ type: 'text', text: `unknown_tool: no tool is named ${JSON.stringify(name.slice(0, 80))}` }],
  isError: true,
});

/** MCP's figures of a progress update: done of total, else a percent of 100, else how many updates came. */
function figures(update: ProgressUpdate, count: number): { progress: number; total?: number } {
  if (update.done !== undefined)
    return { progress: update.done, ...(update.total === undefined ? {} : { total: update.total }) };
  if (update.percent !== undefined) return { progress: update.percent, total: 100 };
  return { progress: count };
}

/** Progress notifications of a call whose client sent a progress token: the action's own (`ctx.progress`), its label the message. */
function progressOf(context: ServerContext): ((event: ExecutionEvent) => void) | undefined {
  const token = context.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  let count = 0;
  return (event) => {
    if (event.type !== 'progress') return;
    count += 1;
    const message = event.label === undefined ? {} : { message: excerpt(event.label) };
    void context.mcpReq
      .notify({
        method: 'notifications/progress',
        params: { progressToken: token, ...figures(event, count), ...message },
      })
      .catch(() => undefined);
  };
}

/** What every server of one set of tools answers alike, built once: a stateless server is built per request. */
const prepared = new WeakMap<readonly ActionTool[], { byName: Map<string, ActionTool>; list: ListToolsResult }>();

function preparedTools(tools: readonly ActionTool[]) {
  let found = prepared.get(tools);
  if (!found) {
    // The action's schemas are JSON Schema objects already: the SDK's type narrows `type` to the literal.
    found = {
      byName: new Map(tools.map((tool) => [tool.name, tool])),
      list: { tools: tools.map(listedTool) } as ListToolsResult,
    };
    prepared.set(tools, found);
  }
  return found;
}

const SEARCH_LIST = { tools: META_TOOLS } as unknown as ListToolsResult;

export function mcpServer(options: ServerOptions): Server {
  const searching = options.tools.length > (options.maxTools ?? DEFAULT_MAX_TOOLS);
  const { byName, list } = preparedTools(options.tools);
  const server = new Server(
    { name: options.name ?? 'plugboard', version: options.version ?? '0.0.0' },
    { capabilities: { tools: {} } },
  );
  const run = async (name: string, args: unknown, context: ServerContext) => {
    const tool = byName.get(name);
    if (!tool) return unknownTool(name);
    const given =
      typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
    const elicited = elicitedApproval(context);
    if (elicited.declined) return elicited.declined;
    const approval = elicited.approvalId && given.approvalId === undefined ? { approvalId: elicited.approvalId } : {};
    const result = await callTool(
      options,
      tool,
      { ...given, ...approval },
      {
        caller: options.callerOf(context),
        signal: context.mcpReq.signal,
        onProgress: progressOf(context),
      },
    );
    return elicitApproval(result, context);
  };
  server.setRequestHandler('tools/list', () => (searching ? SEARCH_LIST : list));
  server.setRequestHandler('tools/call', async (request, context) => {
    const { name, arguments: args } = request.params;
    if (!searching) return run(name, args, context);
    if (name === SEARCH_TOOL) return searchTools(options.tools, args);
    if (name === CALL_TOOL) {
      const call = (args ?? {}) as { name?: unknown; arguments?: unknown };
      return typeof call.name === 'string' ? run(call.name, call.arguments, context) : unknownTool(String(call.name));
    }
    return unknownTool(name);
  });
  return server;
}
