import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadOpenApi, type OpenApiDocument } from '@plugboard/simulator-descript';
import { readFixtureSync } from '@plugboard/testing';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from './scenarios.js';
import { itWithOpenApi, OPENAPI_PATH } from './support.js';

/**
 * Every recorded request and response of every committed fixture, checked against the
 * provider's OpenAPI document (1.2). The document is not part of the repository; the checks run
 * where it is present (CI keeps it at ../shared/reference/ beside the checkout), fail on CI
 * without it and are skipped elsewhere, under titles naming the missing file and where it was looked for.
 */

const files = readdirSync(FIXTURES_DIR)
  .filter((name) => name.endsWith('.json'))
  .sort();

function header(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
  return typeof value === 'string' ? value : undefined;
}

describe("recorded calls conform to the provider's OpenAPI document", () => {
  let document: OpenApiDocument | undefined;
  const openapi = () => (document ??= loadOpenApi(OPENAPI_PATH));

  it('has fixtures to check', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  itWithOpenApi('the document is version 1.2 under /v1', () => {
    expect(openapi().apiVersion).toBe('1.2');
    expect(openapi().basePath).toBe('/v1');
  });

  for (const file of files) {
    itWithOpenApi(`${file}: every request and response matches the document`, () => {
      const fixture = readFixtureSync(join(FIXTURES_DIR, file));
      const problems: string[] = [];
      for (const [index, call] of fixture.calls.entries()) {
        const url = new URL(call.request.path, 'http://provider.test');
        const where = `call ${index} ${call.request.method} ${url.pathname}`;
        const requestProblems = openapi().validateRequest({
          method: call.request.method,
          path: url.pathname,
          query: url.searchParams,
          body: call.request.body,
        });
        problems.push(...requestProblems.map((problem) => `${where} request: ${problem}`));
        const responseProblems = openapi().validateResponse(
          call.request.method,
          url.pathname,
          call.response.status,
          header(call.response.headers, 'content-type'),
          call.response.body,
        );
        problems.push(...responseProblems.map((problem) => `${where} response ${call.response.status}: ${problem}`));
      }
      expect(problems).toEqual([]);
    });
  }
});
