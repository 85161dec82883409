import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  entityNames,
  linkDependencies,
  recordAsReadmeSays,
  scaffoldFromOpenApi,
  startMock,
  suiteFailures,
  tsc,
} from './scaffold-support.js';

/**
 * A second provider's published document, whose operations have no operationId: Blockfrost's
 * (test/documents/blockfrost-openapi.yaml, four of its operations, MIT licensed; the file says
 * where it comes from). The scaffold names its actions from path and method, its data types
 * from the document's components, asks for the API key the document names, builds, records
 * against plugboard mock, and passes its suite.
 */

const BLOCKFROST_OPENAPI = join(import.meta.dirname, 'documents', 'blockfrost-openapi.yaml');

it("scaffolds from Blockfrost's document, operations named by method and path: it builds, records and passes the standard suite", async () => {
  const operations = ['GET /pools', 'GET /pools/{pool_id}', 'GET /blocks/latest', 'get /epochs/latest'];
  const dir = await scaffoldFromOpenApi('blockfrost', BLOCKFROST_OPENAPI, operations);
  // Two paths ending alike (/blocks/latest, /epochs/latest) would both be latest.get: the whole path tells them apart.
  expect((await readdir(join(dir, 'src', 'actions'))).sort()).toEqual([
    'blocks_latest.get.ts',
    'epochs_latest.get.ts',
    'pools.get.ts',
    'pools.list.ts',
  ]);
  expect(await entityNames(dir)).toEqual(['Pool', 'PoolDetail', 'BlockContent', 'EpochContent']);
  // The document requires the pool's id: so does its type.
  expect(await readFile(join(dir, 'src', 'entities.ts'), 'utf8')).toMatch(
    /^ {4}pool_id: z\.string\(\)\.describe\('Bech32 pool ID'\),$/m,
  );

  // The document's security scheme is an API key in the project_id header.
  expect(await readFile(join(dir, 'src', 'index.ts'), 'utf8')).toContain("auth: apiKeyHeader('project_id'),");

  await linkDependencies(dir);
  await tsc(dir, '-p', 'tsconfig.build.json');
  const { url, stop } = await startMock(dir, ['openapi.yaml', '--records', '10']);
  try {
    expect(await recordAsReadmeSays(dir, 'http://127.0.0.1:4010/api/v0', url)).toEqual([
      'pools.list',
      'pools.get',
      'blocks_latest.get',
      'epochs_latest.get',
    ]);
  } finally {
    await stop();
  }
  expect(await suiteFailures(dir)).toBe('');
}, 120_000);
