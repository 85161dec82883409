import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { generateCatalogue } from '../src/index.js';
import { PACK } from './support/connectors.js';
import { readJson, tempDir } from './support/run.js';

describe('openapi.json', () => {
  it('is an OpenAPI 3.1 description of the public catalogue endpoint with the PublicConnector schema', async () => {
    const outDir = await tempDir();
    await generateCatalogue({ connectors: PACK, outDir, generatedAt: '2026-10-01T00:00:00Z' });
    const document = await readJson<Record<string, any>>(join(outDir, 'openapi.json'));
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.version).toBe('2026-10-01');
    const get = document.paths['/api/public/connect/connectors/{connectorKey}'].get;
    expect(get.security).toEqual([]);
    expect(get.parameters[0]).toMatchObject({ name: 'connectorKey', in: 'path', required: true });
    expect(get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PublicConnector',
    });
    expect(get.responses['200'].content['application/json'].examples.shop).toEqual({
      summary: 'Shop',
      externalValue: 'connectors/shop.json',
    });
    const connector = document.components.schemas.PublicConnector;
    expect(connector.required).toEqual([
      'key',
      'name',
      'category',
      'categoryLabel',
      'summary',
      'status',
      'vendor',
      'documentationUrl',
      'implemented',
      'limitations',
      'operations',
    ]);
    expect(connector.properties.operations.items).toEqual({ $ref: '#/components/schemas/PublicOperation' });
    expect(document.components.schemas.PublicOperation.required).toEqual([
      'key',
      'label',
      'description',
      'entity',
      'mode',
      'approvalRequired',
    ]);
    expect(get.responses['429'].headers['Retry-After']).toBeDefined();
    expect(document.components.schemas.Error.properties.error.enum).toEqual([
      'request_failed',
      'internal_server_error',
    ]);

    // Valid against the OpenAPI 3.1 schema itself.
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });
});
