// Renders the MCP approval page once, as a person other than the requester sees it, and saves
// docs/images/approval-page.png for the docs. Run after `pnpm --filter @plugboard/mcp run build`:
//   node tools/approval-page-screenshot.mjs
// The page is served on 127.0.0.1 on a free port, from an approval store in a temporary folder.
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const mcpFolder = new URL('../packages/mcp/', import.meta.url);
const { approvalPage, fileApprovalStore } = await import(new URL('dist/index.js', mcpFolder).href);
const { chromium } = createRequire(new URL('package.json', mcpFolder))('playwright-core');
const out = fileURLToPath(new URL('../docs/images/approval-page.png', import.meta.url));
const digest = 'sha256:4f1c9a0e7b2d5c8e1a3f6b9d0c2e4a7f1b3d5e8a0c2f4b6d8e0a1c3e5f7b9d2a';

const dir = await mkdtemp(join(tmpdir(), 'plugboard-approval-screenshot-'));
const store = fileApprovalStore(dir);
const approval = await store.request({
  digest,
  shortDigest: digest.slice(7, 19),
  connector: 'descript',
  action: 'media_imports.create',
  environment: 'production',
  summary:
    'Import 1 file (interview-final.mp4, 14 minutes) into project "Launch video".\nBillable: about 14 media minutes.',
  requestedBy: 'agent-alice@example.com',
  ttlMs: 15 * 60_000,
});
const page = approvalPage({
  store,
  identify: () => 'bob@example.com',
  signIn: (_req, res) => res.writeHead(401).end(),
});
const server = createServer((req, res) => void page(req, res)).listen(0, '127.0.0.1');
await once(server, 'listening');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const tab = await browser.newPage({ viewport: { width: 900, height: 700 } });
  await tab.goto(`http://127.0.0.1:${server.address().port}/approvals/${approval.id}`);
  await mkdir(fileURLToPath(new URL('../docs/images/', import.meta.url)), { recursive: true });
  await tab.screenshot({ path: out, fullPage: true });
  console.log(`saved ${out}`);
} finally {
  await browser.close();
  server.close();
  await rm(dir, { recursive: true, force: true });
}
