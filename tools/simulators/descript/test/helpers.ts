import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import type { DescriptSimulator } from '../src/index.js';

/** The repository root: tools/simulators/descript/test/ is four levels down. */
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The provider's OpenAPI document: not in the repository, CI has it at ../shared/reference/ beside the checkout. */
export const OPENAPI_PATH = resolve(REPO_ROOT, '../shared/reference/descript-openapi-1.2.yaml');
export const HAS_OPENAPI = existsSync(OPENAPI_PATH);
const ON_CI = !['', '0', 'false'].includes(process.env['CI'] ?? '');

/** A test that needs the document: run where it is present, failed on CI without it (CI always has it), skipped elsewhere. */
export function itWithOpenApi(name: string, test: () => unknown): void {
  if (HAS_OPENAPI) it(name, test);
  else if (ON_CI) it(name, () => expect.fail(`the provider's OpenAPI document is missing at ${OPENAPI_PATH}; CI must have ../shared/reference/ beside the checkout`));
  else it.skip(name, test);
}

/** A fixed instant for tests that inject the clock: 2026-03-10T12:00:00Z. */
export const T0 = Date.UTC(2026, 2, 10, 12, 0, 0);

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, when it was JSON. */
  json: any;
}

/** Calls the simulator the way a connector would; `token: null` sends no Authorization header. */
export async function call(
  sim: DescriptSimulator,
  path: string,
  init: { method?: string; body?: unknown; token?: string | null } = {},
): Promise<Answer> {
  const token = init.token === undefined ? sim.token : init.token;
  const response = await fetch(`${sim.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
      ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A clock tests move by hand. */
export function manualClock(start = T0): { now: () => number; advance: (ms: number) => void } {
  let current = start;
  return { now: () => current, advance: (ms) => (current += ms) };
}
