import { describe, expect, it } from 'vitest';
import { NotFoundError } from '@plugboard/sdk';
import { descriptQuota, dispositionFileName, explainProjectError } from '../src/index.js';
import { resumeFrom, Watermark } from '../src/watermark.js';

describe('dispositionFileName', () => {
  it('reads quoted, bare and RFC 5987 file names', () => {
    expect(dispositionFileName('attachment; filename="Weekly standup Main.md"')).toBe('Weekly standup Main.md');
    expect(dispositionFileName('attachment; filename=transcript.srt')).toBe('transcript.srt');
    expect(dispositionFileName('attachment; filename="a.txt"; filename*=UTF-8\'\'caf%C3%A9.txt')).toBe('café.txt');
    expect(dispositionFileName('attachment; filename="say \\"hi\\".txt"')).toBe('say "hi".txt');
    expect(dispositionFileName('attachment')).toBeNull();
    expect(dispositionFileName(null)).toBeNull();
  });
});

describe('Watermark', () => {
  const fields = { subject: 'test', time: 'updated_at', id: 'id', requestId: () => 'req-42' };

  it('moves to the newest instant and keeps the ids read at it', () => {
    const mark = new Watermark(fields);
    mark.note({ id: 'a', updated_at: '2026-03-01T10:00:00Z' });
    mark.note({ id: 'b', updated_at: '2026-03-01T11:00:00Z' });
    mark.note({ id: 'c', updated_at: '2026-03-01T11:00:00Z' });
    expect(mark.mark).toEqual({ at: '2026-03-01T11:00:00Z', seen_ids: ['b', 'c'] });
  });

  it('drops what an earlier run read: older records, and those at the instant it already saw', () => {
    const mark = new Watermark(fields, { at: '2026-03-01T11:00:00Z', seen_ids: ['b'] });
    expect(mark.isNew({ id: 'z', updated_at: '2026-03-01T10:59:59.9995Z' })).toBe(false);
    expect(mark.isNew({ id: 'b', updated_at: '2026-03-01T11:00:00.000Z' })).toBe(false);
    expect(mark.isNew({ id: 'c', updated_at: '2026-03-01T11:00:00Z' })).toBe(true);
    expect(mark.isNew({ id: 'b', updated_at: '2026-03-01T11:00:01Z' })).toBe(true);
    mark.note({ id: 'c', updated_at: '2026-03-01T11:00:00Z' });
    expect(mark.mark).toEqual({ at: '2026-03-01T11:00:00Z', seen_ids: ['b', 'c'] });
  });

  it('resumes 1 ms before the instant, so an inclusive or an exclusive filter both return the records at it', () => {
    expect(resumeFrom('2026-03-01T11:00:00Z')).toBe('2026-03-01T10:59:59.999Z');
  });

  it("refuses a record without a usable timestamp, naming the provider's request", () => {
    expect(() => new Watermark(fields).note({ id: 'a', updated_at: 'yesterday' })).toThrow(
      expect.objectContaining({
        code: 'schema_mismatch',
        requestId: 'req-42',
        message: expect.stringMatching(/\(request req-42\).*no usable updated_at/),
      }),
    );
  });
});

describe('descriptQuota', () => {
  it("reads the quota, unit and amounts of the provider's 402 message", () => {
    expect(descriptQuota('Insufficient media minutes to start the job (300 minutes required, 50 available)')).toEqual({
      quota: 'media_minutes',
      unit: 'minutes',
      required: 300,
      available: 50,
    });
    expect(descriptQuota('Insufficient AI credits to start the job (1,200 credits required, 25.5 available)')).toEqual({
      quota: 'ai_credits',
      unit: 'credits',
      required: 1200,
      available: 25.5,
    });
    expect(descriptQuota('Payment required')).toEqual({});
    expect(descriptQuota('Insufficient media minutes to start the job')).toEqual({});
    expect(descriptQuota('Insufficient media minutes to start the job (lots required, none available)')).toEqual({});
  });

  it('reads at most 4 KB of hostile text', () => {
    const hostile = `Insufficient ${' to ('.repeat(200_000)}${'9 x required, '.repeat(10_000)}`;
    expect(descriptQuota(hostile)).toEqual({});
    expect(
      descriptQuota(
        `${'x'.repeat(5000)}Insufficient media minutes to start the job (300 minutes required, 50 available)`,
      ),
    ).toEqual({});
  });

  // Speed is measured by tools/bench/redaction.mjs; a test only checks that it finishes and what it gives.
  it.each([10_000, 100_000, 1_000_000])(
    'finishes on %i characters of hostile 402 text and gives quota details',
    (size) => {
      for (const text of [
        'A'.repeat(size),
        `Insufficient ${'media '.repeat(size / 6)}minutes to start the job (300 minutes required, 50 available)`,
        `Insufficient media minutes to start the job (${'1,'.repeat(size / 2)} minutes required, 50 available)`,
        'Insufficient  to ( required, available)'.repeat(size / 40),
      ]) {
        const details = descriptQuota(text);
        expect(typeof details).toBe('object');
        expect(details).toEqual({});
      }
    },
  );

  it('names the project in at most an excerpt of its id', () => {
    const error = explainProjectError(
      new NotFoundError('GET /projects/x: project not found'),
      'p'.repeat(100_000),
    ) as Error;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toContain(`project ${'p'.repeat(200)}… (100000 characters) was not found`);
    expect(error.message.length).toBeLessThan(1000);
  });
});
