import { describe, expect, it } from 'vitest';
import {
  deliver,
  everyFile,
  post,
  PREVIOUS_SECRET,
  receipts,
  SECRET,
  secondsOf,
  signed,
  startReceiver,
  stateFolder,
  testClock,
  trigger,
  useCleanup,
} from './support.js';

/**
 * Nothing the receiver keeps holds a signing secret or a body: not the receipts, not the
 * accepted inputs, not the answers, even when a sender puts the secret in what it sends.
 */

useCleanup();

describe('receipts and stores never hold a secret', () => {
  it('keeps no secret and no body, whatever the sender put where', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const config = {
      triggers: [
        trigger({ previousSecretEnv: 'TRIGGER_PREVIOUS_SECRET', previousSecretValidUntil: '2026-02-01T00:00:00Z' }),
      ],
    };
    const { urls, logs } = await startReceiver({ stateDir, clock, config });
    const url = urls.trg_orders!;
    const leaky = { type: `leak ${SECRET}`, records: [{ id: 'r1', note: PREVIOUS_SECRET, [SECRET]: 'as a key' }] };
    const text = JSON.stringify(leaky);
    const answers = [
      // Accepted, its event id and body holding both secrets.
      await post(url, text, signed(text, { eventId: `evt-${SECRET}`, timestamp: secondsOf(clock) })),
      // Forged, the predecessor in the event id.
      await post(url, text, {
        'x-platform-signature': `v1=${'0'.repeat(64)}`,
        'x-platform-timestamp': String(secondsOf(clock)),
        'x-platform-event-id': `x${PREVIOUS_SECRET}`,
      }),
      await deliver(url, clock, { records: [{ id: 'a body only the sender should see' }] }, 'evt_plain'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 200]);
    const kept = await receipts(stateDir);
    expect(kept[0]).toMatchObject({ eventId: 'evt-[REDACTED]', eventType: 'leak [REDACTED]' });
    expect(kept[1]).toMatchObject({ eventId: 'x[REDACTED]', reasonCode: 'signature_mismatch' });
    const everything = `${await everyFile(stateDir)}\n${JSON.stringify(answers.map((answer) => answer.body))}\n${JSON.stringify(logs)}`;
    for (const secret of [SECRET, PREVIOUS_SECRET]) expect(everything).not.toContain(secret);
    // The receipts hold no body; the accepted inputs (the runs' input) are kept apart from them.
    expect(JSON.stringify(kept)).not.toContain('a body only the sender should see');
  });

  it("hides a secret that a long event type's cut at 200 characters would split", async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock });
    // The secret runs across the 200th character: cut first, its head would be kept.
    const type = `${'x'.repeat(200 - (SECRET.length - 1))}${SECRET}`;
    const answer = await deliver(urls.trg_orders!, clock, { type, records: [{ id: 'r1' }] }, 'evt_long_type');
    expect(answer.status).toBe(200);
    const [kept] = await receipts(stateDir);
    expect(kept!.eventType).toBe(`${'x'.repeat(200 - (SECRET.length - 1))}[REDACTED]`);
    expect(await everyFile(stateDir)).not.toContain(SECRET.slice(0, -1));
  });
});
