import { writeFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateActions } from '../src/openapi-actions.js';
import { loadOpenApiDocument } from '../src/openapi-document.js';

const Thing = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' } },
  required: ['id'],
};
const answer = (schema: unknown) => ({
  '200': { description: 'OK', content: { 'application/json': { schema } } },
});
const body = { content: { 'application/json': { schema: Thing } } };
const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];

const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Things', version: '1.0.0' },
  paths: {
    '/things': {
      get: { operationId: 'listThings', responses: answer({ type: 'array', items: Thing }) },
      post: { operationId: 'createThing', requestBody: body, responses: answer(Thing) },
    },
    '/things/{id}': {
      parameters: id,
      put: { operationId: 'replaceThing', requestBody: body, responses: answer(Thing) },
      patch: { operationId: 'updateThing', requestBody: body, responses: answer(Thing) },
      delete: { operationId: 'deleteThing', responses: answer(Thing) },
    },
  },
};

describe('actions generated from an OpenAPI document declare the effect of their method', () => {
  it('GET reads; POST, PUT, PATCH and DELETE write; PUT and DELETE are idempotent; PUT, PATCH and DELETE overwrite or delete', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'plugboard-openapi-effects-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(DOCUMENT));
      const generated = generateActions(
        await loadOpenApiDocument(file),
        ['listThings', 'createThing', 'replaceThing', 'updateThing', 'deleteThing'].map((operation) => ({ operation })),
      );
      const effects = generated.actions.map((action) => [
        action.operationId,
        action.source.match(/^ {2}effect: .*,$/m)?.[0].trim() ?? null,
        action.source.match(/^ {2}retry: .*,$/m)?.[0].trim() ?? null,
      ]);
      expect(effects).toEqual([
        ['listThings', "effect: 'read',", null],
        ['createThing', 'effect: { writes: true, idempotent: false, destructive: false },', null],
        ['replaceThing', 'effect: { writes: true, idempotent: true, destructive: true },', null],
        ['updateThing', 'effect: { writes: true, idempotent: false, destructive: true },', null],
        ['deleteThing', 'effect: { writes: true, idempotent: true, destructive: true },', null],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
