import { randomBytes } from 'node:crypto';
import { excerpt, InvalidInputError, zodIssues } from '@plugboard/sdk';
import { z } from 'zod';
import { ApprovalStateError, UnknownApprovalError } from './errors.js';
import type { ApprovalRequest, ApprovalStatus, ApprovalVerdict, PendingApproval } from './types.js';

/**
 * What every store does to an approval, apart from keeping it: checking a request, making a new
 * approval, and the transitions pending → approved | rejected → used, each refused typed when the
 * approval is not in the state it needs. The stores apply them under their own lock or in SQL.
 */

export const DEFAULT_TTL_MS = 15 * 60_000;
export const MAX_TTL_MS = 7 * 24 * 3_600_000;
export const MAX_SUMMARY = 2000;
const ID = /^apr_[A-Za-z0-9_-]{22}$/;
export const STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'rejected', 'used'];

const name = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((text) => !/\p{Cc}/u.test(text), 'must not hold control characters');

const REQUEST = z.object({
  digest: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256: and 64 hex digits, as the gate gives it'),
  shortDigest: z.string().regex(/^[0-9a-f]{12}$/, 'must be 12 hex digits, as the gate gives it'),
  connector: name(200),
  action: name(200),
  environment: name(100),
  summary: z.string().trim().min(1).max(MAX_SUMMARY),
  requestedBy: name(200),
  ttlMs: z.number().int().positive().max(MAX_TTL_MS).optional(),
});

const VERDICT = z.object({ decision: z.enum(['approved', 'rejected']), by: name(200) });

function parse<T>(schema: z.ZodType<T>, value: unknown, subject: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidInputError(subject, zodIssues(parsed.error));
  return parsed.data;
}

/** A person as the executor's gate compares them: trimmed, case-insensitive. */
export function personKey(person: string): string {
  return person.trim().toLowerCase();
}

/** Whether `id` is one a store could have handed out; anything else is unknown before any lookup. */
export function checkId(id: unknown): string {
  if (typeof id !== 'string' || !ID.test(id)) throw new UnknownApprovalError(String(id));
  return id;
}

/** A checked request; `InvalidInputError` naming each bad field otherwise. */
export function checkRequest(request: ApprovalRequest): Required<ApprovalRequest> {
  const checked = parse(REQUEST, request, 'approval request');
  if (checked.digest.slice('sha256:'.length, 'sha256:'.length + 12) !== checked.shortDigest)
    throw new InvalidInputError('approval request', [{ path: 'shortDigest', message: 'is not the start of digest' }]);
  return { ...checked, ttlMs: checked.ttlMs ?? DEFAULT_TTL_MS };
}

export function checkVerdict(verdict: ApprovalVerdict): ApprovalVerdict {
  return parse(VERDICT, verdict, 'approval decision');
}

/** A fresh pending approval with an unguessable id. */
export function newApproval(request: Required<ApprovalRequest>, now: number): PendingApproval {
  const { ttlMs, ...fields } = request;
  return {
    id: `apr_${randomBytes(16).toString('base64url')}`,
    ...fields,
    requestedAt: new Date(now).toISOString(),
    expiresAt: new Date(now + ttlMs).toISOString(),
    status: 'pending',
  };
}

/** Whether the approval is one the same requester may be handed again for the same digest. */
export function reusable(approval: PendingApproval, request: ApprovalRequest, now: number): boolean {
  return (
    approval.status === 'pending' &&
    approval.digest === request.digest &&
    personKey(approval.requestedBy) === personKey(request.requestedBy) &&
    now < Date.parse(approval.expiresAt)
  );
}

/** The approval decided; refused when it is not pending, has expired, or the decider requested it. */
export function decided(approval: PendingApproval, verdict: ApprovalVerdict, now: number): PendingApproval {
  const { id } = approval;
  if (approval.status !== 'pending')
    throw new ApprovalStateError('approval_not_pending', id, `it was ${approval.status} already`);
  if (now >= Date.parse(approval.expiresAt))
    throw new ApprovalStateError('approval_expired', id, `it expired at ${approval.expiresAt}`);
  if (personKey(verdict.by) === personKey(approval.requestedBy))
    throw new ApprovalStateError(
      'self_approval',
      id,
      `${excerpt(verdict.by.trim(), 60)} requested this call and cannot decide it; someone else must`,
    );
  return {
    ...approval,
    status: verdict.decision,
    decidedBy: verdict.by.trim(),
    decidedAt: new Date(now).toISOString(),
  };
}

/** The approval used by the run it allowed; refused unless it is approved and quotes `digest`. */
export function consumed(approval: PendingApproval, digest: string): PendingApproval {
  const { id } = approval;
  if (approval.status === 'used') throw new ApprovalStateError('approval_used', id, 'it allowed one run already');
  if (approval.status !== 'approved')
    throw new ApprovalStateError('approval_not_pending', id, `it is ${approval.status}, not approved`);
  if (approval.digest !== digest)
    throw new ApprovalStateError(
      'approval_digest_mismatch',
      id,
      `it approves ${approval.digest}, not ${excerpt(digest, 80)}`,
    );
  return { ...approval, status: 'used' };
}
