import { describe, expect, it } from 'vitest';
import {
  approvalDigest,
  canonicalJson,
  passedGate,
  passGate,
  resumeFrom,
  runPrepared,
  type PreparedAction,
  type PreparedRun,
  prepareRun,
  type RunSubject,
} from '../src/host.js';
import { ApprovalRefusedError, createTransport } from '../src/index.js';
import { example } from './support/connector.js';
import { useHarness } from './support/harness.js';
import { json } from './support/server.js';

const subject: RunSubject = {
  connector: { key: 'example', version: '1.0.0' },
  action: 'orders.create',
  connectionId: 'conn_1',
  environment: 'production',
  input: { customer: { name: 'Ada', email: 'ada@example.com' }, quantity: 2 },
};

describe('approval digest', () => {
  it('is stable under key order at every depth', () => {
    const reordered: RunSubject = {
      environment: 'production',
      input: { quantity: 2, customer: { email: 'ada@example.com', name: 'Ada' } },
      connectionId: 'conn_1',
      action: 'orders.create',
      connector: { version: '1.0.0', key: 'example' },
    };
    expect(approvalDigest(reordered)).toEqual(approvalDigest(subject));
    expect(approvalDigest(subject).digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(approvalDigest(subject).shortDigest).toBe(approvalDigest(subject).digest.slice(7, 19));
  });

  it.each([
    ['connector version', { connector: { key: 'example', version: '1.0.1' } }],
    ['action', { action: 'orders.place' }],
    ['connection', { connectionId: 'conn_2' }],
    ['environment', { environment: 'sandbox' as const }],
    ['input', { input: { customer: { name: 'Ada', email: 'ada@example.com' }, quantity: 3 } }],
  ])('changes when the %s changes', (_, change) => {
    expect(approvalDigest({ ...subject, ...change }).digest).not.toBe(approvalDigest(subject).digest);
  });

  it('binds the validated input, so a default applied is part of what is approved', () => {
    const a = prepareRun(example, 'items.list', { input: {}, connection: { baseUrl: 'http://127.0.0.1:1' } });
    const b = prepareRun(example, 'items.list', {
      input: { limit: 10 },
      connection: { baseUrl: 'http://127.0.0.1:1' },
    });
    expect(a.binding).toEqual(b.binding);
    expect(a.input).toEqual({ limit: 10 });
  });

  it('refuses input with a lone surrogate before anything is digested, as RFC 8785 has no form for it', () => {
    const connection = { baseUrl: 'http://127.0.0.1:1' };
    expect(() => prepareRun(example, 'items.list', { input: { note: 'half \ud83d' }, connection })).toThrow(
      /note: .*lone surrogate/,
    );
    expect(() => prepareRun(example, 'items.list', { input: { ['\ude00']: 1 }, connection })).toThrow(/lone surrogate/);
  });

  it('writes canonical JSON', () => {
    expect(canonicalJson({ b: [2, { d: 1, c: undefined }], a: 'x' })).toBe('{"a":"x","b":[2,{"d":1}]}');
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/no JSON form/);
  });
});

describe('the approval gate', () => {
  const h = useHarness();
  const order = { customer: { name: 'Ada', email: 'ada@example.com' }, quantity: 2 };

  async function pagesOf(prepared: PreparedRun): Promise<unknown> {
    // A production run may reach this test's server on 127.0.0.1 only when the host allows it.
    const transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
    const records: unknown[] = [];
    try {
      for await (const page of runPrepared(prepared, h.options({ input: undefined, transport })))
        records.push(...page.records);
    } finally {
      await transport.close();
    }
    return records;
  }

  it('runs only a prepared run that passed it, and nothing is sent before', async () => {
    const server = await h.start((_, res) => json(res, 201, { order_id: 'ord_1', amount: '2.00' }));
    const options = { input: order, connection: { baseUrl: server.url }, environment: 'production' as const };
    const prepared = prepareRun(example, 'orders.create', options);
    expect(passedGate(prepared)).toBe(false);
    await expect(pagesOf(prepared)).rejects.toThrow(/passed the approval gate/);
    // A copy of a prepared run is not the prepared run the gate let through.
    expect(() => passGate(prepared, undefined)).toThrow(ApprovalRefusedError);
    await expect(pagesOf({ ...prepared } as PreparedRun)).rejects.toThrow(/passed the approval gate/);
    expect(server.requests).toHaveLength(0);

    const approval = {
      digest: prepared.binding.digest,
      requestedBy: 'alice@example.com',
      decidedBy: 'bob@example.com',
      decision: 'approved' as const,
      expiresAt: null,
    };
    const passed = passGate(prepared, approval);
    expect(passedGate(passed)).toBe(true);
    await expect(pagesOf(passed)).resolves.toEqual([{ order_id: 'ord_1', amount: '2.00' }]);
    expect(server.requests).toHaveLength(1);
    // Resuming makes a new prepared run, which must pass the gate again.
    const sandbox = prepareRun(example, 'items.list', { input: {}, connection: { baseUrl: server.url } });
    expect(passedGate(resumeFrom(passGate(sandbox, undefined), undefined))).toBe(false);
  });

  it("marks another runner's prepared run that passed it", () => {
    const prepared = prepareRun(example, 'items.list', { input: {}, connection: { baseUrl: 'http://127.0.0.1:1' } });
    const remote: PreparedAction = { ...prepared, binding: prepared.binding };
    expect(passedGate(remote)).toBe(false);
    expect(passGate(remote, undefined)).toBe(remote);
    expect(passedGate(remote)).toBe(true);
  });
});
