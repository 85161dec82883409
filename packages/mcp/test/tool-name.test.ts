import { describe, expect, test } from 'vitest';
import { MAX_TOOL_NAME, toolName } from '../src/index.js';

describe('toolName', () => {
  test("joins the connector and the action with '_', dots and other characters as '_'", () => {
    expect(toolName('descript', 'projects.list')).toBe('descript_projects_list');
    expect(toolName('shop', 'orders/sync v2')).toBe('shop_orders_sync_v2');
  });

  test('keeps a long name within 64 characters, stable and distinct', () => {
    const a = toolName('connector', `${'a'.repeat(80)}.one`);
    const b = toolName('connector', `${'a'.repeat(80)}.two`);
    expect(a).toHaveLength(MAX_TOOL_NAME);
    expect(b).toHaveLength(MAX_TOOL_NAME);
    expect(a).not.toBe(b);
    expect(toolName('connector', `${'a'.repeat(80)}.one`)).toBe(a);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
