import { expect, it } from 'vitest';
import { type DescriptSimulator, openApiReference } from '../src/index.js';

/** The provider's OpenAPI document, beside the checkout where CI has it. */
const reference = openApiReference();
export const OPENAPI_PATH = reference.path;
export const HAS_OPENAPI = reference.present;

/**
 * A test that needs the document: run where it is present, failed on CI without it (CI always
 * has it), and elsewhere skipped under a title that says which file is missing and where it was
 * looked for.
 */
let warned = false;
export function itWithOpenApi(name: string, test: () => unknown): void {
  if (reference.present) it(name, test);
  else if (reference.required) it(name, () => expect.fail(reference.missing));
  else {
    if (!warned) console.warn(`skipping the tests that need it: ${reference.missing}`);
    warned = true;
    it.skip(`${name} [skipped: ${reference.missing}]`, test);
  }
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
