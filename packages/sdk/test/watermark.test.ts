import { describe, expect, it } from 'vitest';
import { Watermark } from '../src/paginate/watermark.js';

describe('Watermark', () => {
  const fields = { subject: 'test', cursor: 'updated_at', id: 'id', requestId: () => 'req-42' };

  it('moves to the newest value and keeps the ids read at it, in any order', () => {
    const mark = new Watermark(fields);
    mark.note({ id: 'b', updated_at: '2026-03-01T11:00:00Z' });
    mark.note({ id: 'a', updated_at: '2026-03-01T10:00:00Z' });
    mark.note({ id: 'c', updated_at: '2026-03-01T11:00:00Z' });
    expect(mark.mark).toEqual({ at: '2026-03-01T11:00:00Z', seen_ids: ['b', 'c'] });
  });

  it('drops what an earlier run read: older records, and those at the value it already saw', () => {
    const mark = new Watermark(fields, { at: '2026-03-01T11:00:00Z', seen_ids: ['b'] });
    expect(mark.isNew({ id: 'z', updated_at: '2026-03-01T10:59:59.9995Z' })).toBe(false);
    expect(mark.isNew({ id: 'b', updated_at: '2026-03-01T11:00:00.000Z' })).toBe(false);
    expect(mark.isNew({ id: 'c', updated_at: '2026-03-01T11:00:00Z' })).toBe(true);
    expect(mark.isNew({ id: 'b', updated_at: '2026-03-01T11:00:01Z' })).toBe(true);
    mark.note({ id: 'c', updated_at: '2026-03-01T11:00:00Z' });
    expect(mark.mark).toEqual({ at: '2026-03-01T11:00:00Z', seen_ids: ['b', 'c'] });
  });

  it('orders a number cursor as a number', () => {
    const mark = new Watermark({ ...fields, cursor: 'version' }, { at: 10, seen_ids: ['a'] });
    expect(mark.isNew({ id: 'b', version: 9 })).toBe(false);
    expect(mark.isNew({ id: 'b', version: 10 })).toBe(true);
    mark.note({ id: 'c', version: 11 });
    expect(mark.mark).toEqual({ at: 11, seen_ids: ['c'] });
  });

  it("refuses a record without a usable cursor value or id, naming the provider's request", () => {
    expect(() => new Watermark(fields).note({ id: 'a', updated_at: 'yesterday' })).toThrow(
      expect.objectContaining({
        code: 'schema_mismatch',
        requestId: 'req-42',
        message: expect.stringMatching(/\(request req-42\).*no usable updated_at/),
      }),
    );
    expect(() => new Watermark(fields).note({ updated_at: '2026-03-01T11:00:00Z' })).toThrow(/no usable id/);
  });
});
