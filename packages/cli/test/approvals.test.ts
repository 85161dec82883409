import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ApprovalRequest, fileApprovalStore, postgresApprovalStore } from '@plugboard/mcp';
import { migrate } from '@plugboard/worker';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type PostgresServer, startPostgres } from '../../worker/test/support/postgres.js';

/** The built `plugboard` binary, as a person runs it. */
const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const DIGEST = `sha256:${'ab12'.repeat(16)}`;
const REQUEST: ApprovalRequest = {
  digest: DIGEST,
  shortDigest: DIGEST.slice(7, 19),
  connector: 'descript',
  action: 'media_imports.create',
  environment: 'production',
  summary: 'import 1 file into project Launch',
  requestedBy: 'alice@example.com',
};

function plugboard(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, HOME: tmpdir() } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

let state: string;
let server: PostgresServer;
beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'plugboard-approvals-cli-'));
  server = await startPostgres();
});
afterAll(async () => {
  await rm(state, { recursive: true, force: true });
  await server?.stop();
});

describe('plugboard approvals', () => {
  test('lists, shows and approves an approval in a state folder; the requester and a second decision are refused', async () => {
    const { id } = await fileApprovalStore(state).request(REQUEST);
    const listed = await plugboard(['approvals', 'list', '--status', 'pending', '--state', state]);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).id),
    ).toEqual([id]);
    const shown = await plugboard(['approvals', 'show', id, '--state', state]);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      id,
      digest: DIGEST,
      status: 'pending',
      requestedBy: 'alice@example.com',
    });

    const own = await plugboard(['approvals', 'approve', id, '--by', ' Alice@Example.com', '--state', state]);
    expect(own.code).toBe(3);
    expect(own.stderr).toContain('self_approval');
    const approved = await plugboard(['approvals', 'approve', id, '--by', 'bob@example.com', '--state', state]);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ id, status: 'approved', decidedBy: 'bob@example.com' });
    const again = await plugboard(['approvals', 'reject', id, '--by', 'carol@example.com', '--state', state]);
    expect(again.code).toBe(6);
    expect(again.stderr).toContain('approval_not_pending');
    expect((await fileApprovalStore(state).get(id)).status).toBe('approved');
  });

  test('an unknown id exits 6; a bad status or a missing --by is a usage error', async () => {
    const unknown = await plugboard(['approvals', 'show', 'apr_AAAAAAAAAAAAAAAAAAAAAA', '--state', state]);
    expect(unknown.code).toBe(6);
    expect(unknown.stderr).toContain('approval_unknown');
    expect((await plugboard(['approvals', 'list', '--status', 'maybe', '--state', state])).code).toBe(2);
    expect((await plugboard(['approvals', 'approve', 'apr_AAAAAAAAAAAAAAAAAAAAAA', '--state', state])).code).toBe(2);
  });

  test("rejects an approval kept in the fleet's PostgreSQL", async () => {
    const url = await server.database();
    await migrate(url);
    const pool = new pg.Pool({ connectionString: url });
    try {
      const { id } = await postgresApprovalStore(pool).request(REQUEST);
      const rejected = await plugboard(['approvals', 'reject', id, '--by', 'bob@example.com', '--postgres', url]);
      expect(rejected.code).toBe(0);
      expect(JSON.parse(rejected.stdout)).toMatchObject({ id, status: 'rejected', decidedBy: 'bob@example.com' });
      expect((await postgresApprovalStore(pool).get(id)).status).toBe('rejected');
    } finally {
      await pool.end();
    }
  });
});
