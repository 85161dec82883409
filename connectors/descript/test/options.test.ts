import { createExecutor, type OptionsRequest } from '@plugboard/sdk/host';
import { describe, expect, it } from 'vitest';
import { type Harness, useHarness } from './support.js';

const start = useHarness();

function lister(h: Harness) {
  const executor = createExecutor({
    connectors: [h.connector],
    resolveConnection: (id) => ({ id, baseUrl: h.sim.url }),
    resolveCredential: () => h.sim.token,
    transport: h.transport,
    log: () => undefined,
  });
  return (action: string, field: string, more: Partial<OptionsRequest> = {}) =>
    executor.listOptions({ connectorKey: 'descript', action, field, connectionId: 'conn_descript', ...more });
}

describe("the destinations' ids are picked from the drive", () => {
  it("project_id lists the drive's projects page by page, searched by name at the provider", async () => {
    // More projects than one page of 50.
    const h = await start({ size: 80 });
    const list = lister(h);
    const first = await list('media_imports.create', 'project_id');
    expect(first.items).toHaveLength(50);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await list('media_imports.create', 'project_id', { cursor: first.nextCursor! });
    const firstIds = new Set(first.items.map((item) => item.value));
    expect(second.items.some((item) => firstIds.has(item.value))).toBe(false);

    const word = first.items[0]!.label.split(' ')[0]!;
    const found = await list('agent_edits.create', 'project_id', { search: word.toUpperCase() });
    expect(found.items.length).toBeGreaterThan(0);
    for (const item of found.items) expect(item.label.toLowerCase()).toContain(word.toLowerCase());
    expect(h.requestsTo('/projects').at(-1)?.query).toMatchObject({ name: word.toUpperCase() });
  });

  it("agent_edits.create's model lists the models and aliases, filtered by label here", async () => {
    const h = await start();
    const page = await lister(h)('agent_edits.create', 'model', { search: 'haiku' });
    expect(page.items.map((item) => item.value)).toEqual(['claude-haiku-5.5', 'claude-haiku']);
    expect(page.items[1]).toMatchObject({ description: 'low cost; Tracks stable Anthropic Claude Haiku' });
    expect(h.requestsTo('/agent/models')).toHaveLength(1);
  });
});
