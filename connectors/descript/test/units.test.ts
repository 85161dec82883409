import { describe, expect, it } from 'vitest';
import { NotFoundError, QuotaExhaustedError } from '@plugboard/sdk';
import { classifyDescriptFailure, descriptQuota, dispositionFileName, explainProjectError } from '../src/index.js';

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
  });

  it('names the quota when the message gives no amounts, or amounts it cannot read', () => {
    expect(descriptQuota('Insufficient media minutes to start the job')).toEqual({ quota: 'media_minutes' });
    expect(descriptQuota('Insufficient AI credits to run the agent.')).toEqual({ quota: 'ai_credits' });
    expect(descriptQuota('Insufficient media minutes to start the job (lots required, none available)')).toEqual({
      quota: 'media_minutes',
    });
    // A name no quota has (empty, or longer than any) is not one.
    expect(descriptQuota('Insufficient  to start')).toEqual({});
    expect(descriptQuota(`Insufficient ${'very '.repeat(30)}minutes to start`)).toEqual({});
  });

  it('makes a 402 that names its quota without amounts a QuotaExhaustedError naming that quota', () => {
    const error = classifyDescriptFailure({
      status: 402,
      headers: new Headers(),
      body: { error: 'payment_required', message: 'Insufficient media minutes to start the job' },
      message: 'Insufficient media minutes to start the job',
      requestId: 'req_402',
      retryAfterMs: undefined,
      operation: 'POST /jobs/import/project_media',
    });
    expect(error).toBeInstanceOf(QuotaExhaustedError);
    expect(error).toMatchObject({ code: 'quota_exhausted', quota: 'media_minutes', status: 402, retryable: false });
    expect((error as QuotaExhaustedError).required).toBeUndefined();
    expect(error.message).toContain('Insufficient media minutes to start the job');
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
        // Named, the quota is all that is read of amounts too long to be any.
        expect(details).toEqual(text.includes('1,1,') ? { quota: 'media_minutes' } : {});
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
