import { describe, expect, it } from 'vitest';
import { approvalDigest, canonicalJson } from '../src/host.js';
import { type RunSubject, prepareRun } from '../src/index.js';
import { example } from './support/connector.js';

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
