import { ConnectorError, InvalidInputError } from '@plugboard/sdk';
import { type ManualClock, manualClock } from '@plugboard/sdk/host';
import { beforeEach, describe, expect, test } from 'vitest';
import type { ApprovalRequest, ApprovalStore } from '../../src/index.js';

/**
 * What every approval store does, run against each (files, PostgreSQL). `open(clock)` gives two
 * stores on one place, as two processes would have; the clock is the test's to drive.
 */
export type OpenStores = (clock: ManualClock) => Promise<[ApprovalStore, ApprovalStore]>;

export const DIGEST = `sha256:${'ab12'.repeat(16)}`;
export const OTHER_DIGEST = `sha256:${'cd34'.repeat(16)}`;

export function requestOf(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    digest: DIGEST,
    shortDigest: DIGEST.slice(7, 19),
    connector: 'descript',
    action: 'media_imports.create',
    environment: 'production',
    summary: 'import 1 file into project Launch (billable: about 3 media minutes)',
    requestedBy: 'alice@example.com',
    ...overrides,
  };
}

/** The typed refusal `promise` ends with: its code. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return (error as ConnectorError).code;
}

export function approvalStoreContract(name: string, open: OpenStores): void {
  describe(`${name}: the approval store contract`, () => {
    let clock: ManualClock;
    let store: ApprovalStore;
    let other: ApprovalStore;
    beforeEach(async () => {
      clock = manualClock();
      [store, other] = await open(clock);
    });

    test('a request is pending, with an unguessable id and an expiry from the clock', async () => {
      const approval = await store.request(requestOf());
      expect(approval).toEqual({
        ...requestOf(),
        id: expect.stringMatching(/^apr_[A-Za-z0-9_-]{22}$/),
        requestedAt: new Date(clock.now()).toISOString(),
        expiresAt: new Date(clock.now() + 15 * 60_000).toISOString(),
        status: 'pending',
      });
      expect(await other.get(approval.id)).toEqual(approval);
    });

    test('the same requester asking again for the same digest gets the pending one back; others get their own', async () => {
      const first = await store.request(requestOf({ ttlMs: 60_000 }));
      expect((await other.request(requestOf({ requestedBy: ' ALICE@example.com ' }))).id).toBe(first.id);
      expect((await store.request(requestOf({ requestedBy: 'carol@example.com' }))).id).not.toBe(first.id);
      expect(
        (await store.request(requestOf({ digest: OTHER_DIGEST, shortDigest: OTHER_DIGEST.slice(7, 19) }))).id,
      ).not.toBe(first.id);
      await clock.advance(60_000);
      expect((await store.request(requestOf())).id).not.toBe(first.id);
    });

    test('bad input is refused typed, naming the field, before anything is kept', async () => {
      const refused = async (request: ApprovalRequest) => {
        const error = await store.request(request).catch((failure: unknown) => failure);
        expect(error).toBeInstanceOf(InvalidInputError);
        return (error as InvalidInputError).message;
      };
      expect(await refused(requestOf({ digest: 'abc' }))).toContain('digest');
      expect(await refused(requestOf({ shortDigest: '000000000000' }))).toContain('shortDigest');
      expect(await refused(requestOf({ summary: 'x'.repeat(2001) }))).toContain('summary');
      expect(await refused(requestOf({ requestedBy: '  ' }))).toContain('requestedBy');
      expect(await refused(requestOf({ ttlMs: -1 }))).toContain('ttlMs');
      expect(await store.list()).toEqual([]);
    });

    test('another person decides; the requester, however spelt, is refused', async () => {
      const { id } = await store.request(requestOf());
      expect(await codeOf(other.decide(id, { decision: 'approved', by: '  Alice@Example.COM ' }))).toBe(
        'self_approval',
      );
      await clock.advance(1000);
      const approved = await other.decide(id, { decision: 'approved', by: ' bob@example.com ' });
      expect(approved).toMatchObject({
        status: 'approved',
        decidedBy: 'bob@example.com',
        decidedAt: new Date(clock.now()).toISOString(),
      });
      expect(await store.get(id)).toEqual(approved);
      expect(await codeOf(store.decide(id, { decision: 'rejected', by: 'carol@example.com' }))).toBe(
        'approval_not_pending',
      );
    });

    test('an expired, unknown or malformed approval is refused typed', async () => {
      const { id } = await store.request(requestOf({ ttlMs: 1000 }));
      await clock.advance(1000);
      expect(await codeOf(store.decide(id, { decision: 'approved', by: 'bob' }))).toBe('approval_expired');
      expect(await codeOf(store.decide('apr_AAAAAAAAAAAAAAAAAAAAAA', { decision: 'approved', by: 'bob' }))).toBe(
        'approval_unknown',
      );
      expect(await codeOf(store.get('../../etc/passwd'))).toBe('approval_unknown');
      expect(await codeOf(store.decisionFor('apr_AAAAAAAAAAAAAAAAAAAAAA'))).toBe('approval_unknown');
      const error = await store
        .decide(id, { decision: 'maybe' as 'approved', by: 'bob' })
        .catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(InvalidInputError);
    });

    test('the decision for the gate: none while pending; once approved, its use consumes it exactly once', async () => {
      const { id } = await store.request(requestOf());
      expect(await codeOf(store.decisionFor(id))).toBe('approval_pending');
      await other.decide(id, { decision: 'approved', by: 'bob@example.com' });
      const decision = await store.decisionFor(id);
      expect(decision).toMatchObject({
        id,
        digest: DIGEST,
        requestedBy: 'alice@example.com',
        decidedBy: 'bob@example.com',
        decision: 'approved',
      });
      expect(await codeOf(store.use(id, OTHER_DIGEST))).toBe('approval_digest_mismatch');
      expect((await other.get(id)).status).toBe('approved');
      await decision.use!();
      expect((await other.get(id)).status).toBe('used');
      expect(await codeOf(decision.use!())).toBe('approval_used');
      expect(await codeOf((await other.decisionFor(id)).use!())).toBe('approval_used');
    });

    test('a rejected approval is handed over as rejected, and cannot be used', async () => {
      const { id } = await store.request(requestOf());
      await other.decide(id, { decision: 'rejected', by: 'bob@example.com' });
      expect((await store.decisionFor(id)).decision).toBe('rejected');
      expect(await codeOf(store.use(id, DIGEST))).toBe('approval_not_pending');
    });

    test('uses and decisions at once through two stores: exactly one of each wins', async () => {
      const { id } = await store.request(requestOf());
      const decisions = await Promise.allSettled(
        [store, other, store, other].map((each, index) =>
          each.decide(id, { decision: index % 2 ? 'rejected' : 'approved', by: `person${index}` }),
        ),
      );
      expect(decisions.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const second = await store.request(requestOf({ requestedBy: 'dave' }));
      await store.decide(second.id, { decision: 'approved', by: 'erin' });
      const uses = await Promise.allSettled(
        [store, other, store, other, store].map((each) => each.use(second.id, DIGEST)),
      );
      expect(uses.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of uses)
        if (outcome.status === 'rejected') expect((outcome.reason as ConnectorError).code).toBe('approval_used');
    });

    test('lists newest first, by status, bounded', async () => {
      const first = await store.request(requestOf());
      await clock.advance(1);
      const second = await store.request(requestOf({ requestedBy: 'carol' }));
      await other.decide(first.id, { decision: 'approved', by: 'bob' });
      expect((await other.list()).map((approval) => approval.id)).toEqual([second.id, first.id]);
      expect((await other.list({ status: 'approved' })).map((approval) => approval.id)).toEqual([first.id]);
      expect(await other.list({ limit: 1 })).toHaveLength(1);
      expect(await codeOf(other.list({ status: 'gone' as 'used' }))).toBe('invalid_input');
    });
  });
}
