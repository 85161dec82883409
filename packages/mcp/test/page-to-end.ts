import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';

/** Every record of a source tool, a page a call, following nextCursor to its end. */
export async function pageToEnd(client: Client, name: string, args: Record<string, unknown>) {
  const records: Array<{ id: string }> = [];
  let cursor: string | null | undefined;
  let calls = 0;
  do {
    const result = await client.callTool({ name, arguments: { ...args, ...(cursor ? { cursor } : {}) } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const page = result.structuredContent as { records: Array<{ id: string }>; nextCursor: string | null };
    records.push(...page.records);
    cursor = page.nextCursor;
    calls += 1;
  } while (cursor && calls < 20);
  return { records, calls };
}
