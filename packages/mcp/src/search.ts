import type { ToolResult } from './call.js';
import type { ActionTool } from './tools.js';

/**
 * `search_actions`: the tools whose name or description hold every word of the query, at most
 * `MAX_MATCHES`, each as `tools/list` would give it, so the agent can call one with `call_action`.
 */

export const MAX_MATCHES = 10;
const MAX_QUERY_CHARS = 200;

export function searchTools(tools: readonly ActionTool[], args: unknown): ToolResult {
  const query = (args as { query?: unknown } | undefined)?.query;
  const text = typeof query === 'string' ? query.slice(0, MAX_QUERY_CHARS).toLowerCase() : '';
  const words = text.split(/\s+/).filter(Boolean);
  const matches = tools
    .filter((tool) => {
      const haystack = `${tool.name} ${tool.description}`.toLowerCase();
      return words.every((word) => haystack.includes(word));
    })
    .slice(0, MAX_MATCHES)
    .map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, annotations }));
  const structured = { matches, total: matches.length };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}
