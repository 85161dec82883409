import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { type Connector, createTransport, readAll, type Transport, writeAction } from '@plugboard/sdk';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { assertBuilt, ROOT } from './support/packages.js';

/**
 * The root README's lead example, as written: its `ts` block under "A connector in brief" is
 * compiled with TypeScript against the built `@plugboard/sdk` and the SDK's zod, then run
 * against a provider on 127.0.0.1 that pages its projects with a cursor and lists only those
 * updated strictly after `updated_after`. A project written after the first run at the same
 * instant as the last one read must come with the second run, and nothing read comes again.
 */

const run = promisify(execFile);

interface Project {
  id: string;
  name: string;
  updated_at: string;
}

let tmp: string;
let server: Server;
let baseUrl: string;
let transport: Transport;
let example: { default: Connector };
/** The provider's projects, in the order they were written. */
const stored: Project[] = [];
const TOKEN = 'readme-example-token-1234';

/** The `ts` block of the README's section `heading`, exactly as it stands. */
function codeBlock(markdown: string, heading: string): string {
  const section = markdown.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  const block = section && /^```ts\n([\s\S]*?)^```$/m.exec(section);
  if (!block) throw new Error(`the README has no ts block under '## ${heading}'`);
  return block[1]!;
}

/** A folder where the block compiles as an author's package would: the workspace's SDK and zod, TypeScript. */
async function compile(source: string): Promise<string> {
  const modules = join(tmp, 'node_modules');
  await mkdir(join(modules, '@plugboard'), { recursive: true });
  await symlink(join(ROOT, 'packages', 'sdk'), join(modules, '@plugboard', 'sdk'));
  await symlink(await realpath(join(ROOT, 'packages', 'sdk', 'node_modules', 'zod')), join(modules, 'zod'));
  await symlink(await realpath(join(ROOT, 'node_modules', 'typescript')), join(modules, 'typescript'));
  await mkdir(join(tmp, 'src'));
  await writeFile(join(tmp, 'src', 'connector.ts'), source);
  await writeFile(join(tmp, 'package.json'), JSON.stringify({ name: 'readme-example', type: 'module' }));
  const compilerOptions = {
    target: 'ES2023',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: [],
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    rootDir: 'src',
    outDir: 'dist',
  };
  await writeFile(join(tmp, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }));
  const tsc = join(modules, 'typescript', 'bin', 'tsc');
  await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: tmp }).catch((error: { stdout: string }) => {
    throw new Error(`the README's example does not compile:\n${error.stdout}`);
  });
  return join(tmp, 'dist', 'connector.js');
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** GET /v1/projects oldest change first, `limit` a page, `cursor` the offset; PUT /v1/projects/{id}/name. */
async function startProvider(): Promise<void> {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return answer(res, 401, { error: 'unauthorized' });
    const renamed = /^\/v1\/projects\/([^/]+)\/name$/.exec(url.pathname);
    if (req.method === 'PUT' && renamed) {
      let body = '';
      for await (const chunk of req) body += chunk;
      const project = stored.find((each) => each.id === decodeURIComponent(renamed[1]!));
      if (!project) return answer(res, 404, { error: 'not_found' });
      project.name = (JSON.parse(body) as { name: string }).name;
      return answer(res, 200, project);
    }
    if (req.method !== 'GET' || url.pathname !== '/v1/projects') return answer(res, 404, { error: 'not_found' });
    const after = url.searchParams.get('updated_after');
    // The filter leaves its bound out: updated strictly after it.
    const listed = stored
      .filter((project) => after === null || Date.parse(project.updated_at) > Date.parse(after))
      .sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.id.localeCompare(b.id));
    const from = Number(url.searchParams.get('cursor') ?? 0);
    const limit = Number(url.searchParams.get('limit'));
    const next = from + limit < listed.length ? { next_cursor: String(from + limit) } : {};
    answer(res, 200, { data: listed.slice(from, from + limit), pagination: next });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

beforeAll(async () => {
  await assertBuilt(['packages/sdk']);
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'plugboard-readme-')));
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  example = (await import(pathToFileURL(await compile(codeBlock(readme, 'A connector in brief'))).href)) as {
    default: Connector;
  };
  await startProvider();
  transport = createTransport();
});

afterAll(async () => {
  await transport?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const project = (id: string, second: number): Project => ({
  id,
  name: `Project ${id}`,
  updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
});

test("the README's example compiles, and its projects.list reads a project written later at the checkpoint's instant, and nothing twice", async () => {
  const options = (checkpoint?: unknown) => ({
    input: { limit: 2 },
    connection: { baseUrl },
    credential: () => TOKEN,
    transport,
    ...(checkpoint === undefined ? {} : { checkpoint }),
  });
  const ids = (records: unknown[]) => records.map((record) => (record as Project).id);
  stored.push(project('p1', 1), project('p2', 2), project('p3', 3));
  const first = await readAll(example.default, 'projects.list', options());
  expect(ids(first.records)).toEqual(['p1', 'p2', 'p3']);
  expect(first.pages).toBe(2);
  // Written after the first run: one at the same instant as the last project read (a tie), one later.
  stored.push(project('p4', 3), project('p5', 4));
  const second = await readAll(example.default, 'projects.list', options(first.checkpoint));
  expect(ids(second.records)).toEqual(['p4', 'p5']);
  // The destination beside it renames through the same connector.
  const renamed = await writeAction(example.default, 'projects.rename', {
    ...options(),
    input: { id: 'p2', name: 'Renamed' },
  });
  expect(renamed).toEqual({ ...project('p2', 2), name: 'Renamed' });
});
