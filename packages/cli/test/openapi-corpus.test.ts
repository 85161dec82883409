import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOpenApiDocument, operationsOf } from '../src/openapi-document.js';
import { DESCRIPT_OPENAPI, scaffoldFromOpenApi, startMock } from './scaffold-support.js';

/**
 * Every real document of the corpus (test/documents/README.md says where each comes from):
 * `plugboard new --from-openapi` scaffolds from all its operations, and `plugboard mock` starts
 * on the scaffold's stand-in document, serving a list operation's first page.
 */

const DOCUMENTS = join(import.meta.dirname, 'documents');
const CORPUS: ReadonlyArray<{ name: string; file: string; list: string }> = [
  { name: 'github', file: join(DOCUMENTS, 'github-openapi.yaml'), list: '/orgs/octokit/repos' },
  { name: 'blockfrost', file: join(DOCUMENTS, 'blockfrost-openapi.yaml'), list: '/pools' },
  { name: 'descript', file: DESCRIPT_OPENAPI, list: '/projects' },
  { name: 'box', file: join(DOCUMENTS, 'box-openapi.json'), list: '/folders/0/items' },
  { name: 'openai', file: join(DOCUMENTS, 'openai-openapi.json'), list: '/assistants' },
];

describe('the corpus of real documents', () => {
  for (const { name, file, list } of CORPUS) {
    it(`${name}: plugboard new scaffolds from every operation and plugboard mock serves the stand-in`, async () => {
      const document = await loadOpenApiDocument(file);
      const operations = operationsOf(document).map(
        ({ path, method, operation }) => operation.operationId ?? `${method.toUpperCase()} ${path}`,
      );
      const dir = await scaffoldFromOpenApi(name, file, operations);
      const standIn = file.endsWith('.json') ? 'openapi.json' : 'openapi.yaml';
      expect(await readFile(join(dir, 'README.md'), 'utf8')).toContain(`npx plugboard mock ${standIn} --port 4010`);
      const { url, stop } = await startMock(dir, [standIn, '--records', '5']);
      try {
        const headers = { authorization: 'Bearer stand-in-token', project_id: 'stand-in-token' };
        const answer = await fetch(`${url}${list}`, { headers });
        expect(answer.status, await answer.clone().text()).toBe(200);
      } finally {
        await stop();
      }
    }, 60_000);
  }
});
