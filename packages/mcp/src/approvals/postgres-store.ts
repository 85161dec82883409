import type pg from 'pg';
import { type Clock, systemClock } from '@plugboard/sdk/host';
import { decisionOf } from './decision.js';
import { UnknownApprovalError } from './errors.js';
import { listOptions } from './listing.js';
import { checkId, checkRequest, checkVerdict, consumed, decided, newApproval, personKey, reusable } from './records.js';
import type { ApprovalStore, PendingApproval } from './types.js';

/**
 * Approvals in the fleet's PostgreSQL (table `plugboard_approvals`, migration 0006 of
 * `@plugboard/worker`): every server of a fleet sees one approval. A decision and a use are one
 * UPDATE that changes the row only from the state it needs (compare-and-set); when it changed
 * nothing, the row is read to say why, with the same rules the file store applies.
 */

interface Row {
  id: string;
  digest: string;
  short_digest: string;
  connector: string;
  action: string;
  environment: string;
  summary: string;
  requested_by: string;
  requested_at: Date;
  expires_at: Date;
  status: PendingApproval['status'];
  decided_by: string | null;
  decided_at: Date | null;
}

function approvalOf(row: Row): PendingApproval {
  return {
    id: row.id,
    digest: row.digest,
    shortDigest: row.short_digest,
    connector: row.connector,
    action: row.action,
    environment: row.environment,
    summary: row.summary,
    requestedBy: row.requested_by,
    requestedAt: row.requested_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    status: row.status,
    ...(row.decided_by === null ? {} : { decidedBy: row.decided_by }),
    ...(row.decided_at === null ? {} : { decidedAt: row.decided_at.toISOString() }),
  };
}

const INSERT = `INSERT INTO plugboard_approvals (id, digest, short_digest, connector, action, environment, summary,
  requested_by, requester_key, requested_at, expires_at, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending')`;
// Only a pending approval that has not expired, decided by someone other than its requester.
const DECIDE = `UPDATE plugboard_approvals SET status = $2, decided_by = $3, decided_at = $4
  WHERE id = $1 AND status = 'pending' AND expires_at > $4 AND requester_key <> $5 RETURNING *`;
const USE = `UPDATE plugboard_approvals SET status = 'used' WHERE id = $1 AND status = 'approved' AND digest = $2 RETURNING *`;

/** The PostgreSQL store on `pool` (migrated by `plugboard db migrate`); `clock` gives every time it keeps. */
export function postgresApprovalStore(pool: pg.Pool, options: { clock?: Clock } = {}): ApprovalStore {
  const clock = options.clock ?? systemClock;
  const read = async (id: string): Promise<PendingApproval> => {
    const { rows } = await pool.query<Row>('SELECT * FROM plugboard_approvals WHERE id = $1', [checkId(id)]);
    if (!rows[0]) throw new UnknownApprovalError(id);
    return approvalOf(rows[0]);
  };
  /** Runs a compare-and-set; when it changed nothing, `why` throws the refusal the row's state calls for. */
  const swap = async (id: string, sql: string, values: unknown[], why: (approval: PendingApproval) => unknown) => {
    const { rows } = await pool.query<Row>(sql, [checkId(id), ...values]);
    if (rows[0]) return approvalOf(rows[0]);
    why(await read(id));
    throw new Error(`approval ${id} changed while it was being written; look at it again`);
  };

  const store: ApprovalStore = {
    async request(request) {
      const checked = checkRequest(request);
      const key = personKey(checked.requestedBy);
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // One request at a time per requester and digest, so asking twice at once makes one approval.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${checked.digest}\n${key}`]);
        const { rows } = await client.query<Row>(
          `SELECT * FROM plugboard_approvals WHERE digest = $1 AND requester_key = $2 AND status = 'pending'
            ORDER BY requested_at DESC LIMIT 1`,
          [checked.digest, key],
        );
        const earlier = rows[0] ? approvalOf(rows[0]) : undefined;
        const approval =
          earlier && reusable(earlier, checked, clock.now()) ? earlier : newApproval(checked, clock.now());
        if (approval !== earlier) {
          const { id, digest, shortDigest, connector, action, environment, summary, requestedBy } = approval;
          await client.query(INSERT, [
            ...[id, digest, shortDigest, connector, action, environment, summary, requestedBy, key],
            ...[approval.requestedAt, approval.expiresAt],
          ]);
        }
        await client.query('COMMIT');
        return approval;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    get: read,
    async list(options = {}) {
      const { status, limit } = listOptions(options);
      const { rows } = await pool.query<Row>(
        `SELECT * FROM plugboard_approvals WHERE $1::text IS NULL OR status = $1
          ORDER BY requested_at DESC, id LIMIT $2`,
        [status ?? null, limit],
      );
      return rows.map(approvalOf);
    },
    async decide(id, verdict) {
      const checked = checkVerdict(verdict);
      const now = clock.now();
      const values = [checked.decision, checked.by.trim(), new Date(now).toISOString(), personKey(checked.by)];
      return swap(id, DECIDE, values, (approval) => decided(approval, checked, now));
    },
    async decisionFor(id) {
      return decisionOf(await read(id), store);
    },
    async use(id, digest) {
      return swap(id, USE, [digest], (approval) => consumed(approval, digest));
    },
  };
  return store;
}
