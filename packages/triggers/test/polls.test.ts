import { afterEach, describe, expect, it } from 'vitest';
import { listPolls } from '../src/index.js';
import { at, closeTransports, pollStarter, pollTrigger, startFeed, TOKEN } from './poll-support.js';
import { everyFile, startReceiver, stateFolder, testClock, useCleanup } from './support.js';

/**
 * Poll triggers in the receiver: every `intervalMinutes` on the clock the test drives, an
 * incremental read of a source from its checkpoint through the executor, against a feed started
 * here; never two polls of one stream at once; a failure kept typed in the state, the next poll
 * still coming; the state, and `nextCheckAt` with it, kept across a restart.
 */

useCleanup();

const MINUTE = 60_000;
let feedServer: Awaited<ReturnType<typeof startFeed>> | undefined;
afterEach(async () => {
  await closeTransports();
  await feedServer?.close();
  feedServer = undefined;
});

async function feedOf(
  items = [
    { id: 'a', updated_at: at(1) },
    { id: 'b', updated_at: at(2) },
  ],
) {
  feedServer = await startFeed(items);
  return feedServer;
}

describe('a poll trigger', () => {
  it('reads from the checkpoint: the second poll gets only the newer records', async () => {
    const feed = await feedOf();
    const clock = testClock();
    const start = clock.now();
    const stateDir = await stateFolder();
    const { startPoll, read } = pollStarter(stateDir);
    const { receiver } = await startReceiver({
      stateDir,
      clock,
      config: { polls: [pollTrigger(feed.url)] },
      startPoll,
    });
    // A poll never polled before falls due when the receiver listens.
    expect(receiver.polls()).toEqual([
      expect.objectContaining({
        pollTriggerId: 'poll_items',
        state: 'active',
        nextCheckAt: new Date(start).toISOString(),
      }),
    ]);
    await clock.advance(0);
    await receiver.pollsSettled();
    expect(read).toEqual([[feed.items[0], feed.items[1]]]);
    feed.items.push({ id: 'c', updated_at: at(3) });
    await clock.advance(4 * MINUTE);
    expect(feed.seen.requests).toBe(1);
    await clock.advance(MINUTE);
    await receiver.pollsSettled();
    expect(read).toEqual([[feed.items[0], feed.items[1]], [{ id: 'c', updated_at: at(3) }]]);
    expect(feed.seen.after).toEqual([null, at(2)]);
    const [state] = receiver.polls();
    expect(state).toMatchObject({
      kind: 'poll',
      status: 'active',
      state: 'active',
      stateMessage: null,
      intervalMinutes: 5,
      environment: 'sandbox',
      connectionId: 'feed-main',
      operationKey: 'feed/items.list',
      lastCheckedAt: new Date(start + 5 * MINUTE).toISOString(),
      nextCheckAt: new Date(start + 10 * MINUTE).toISOString(),
      lastExecutionId: expect.stringMatching(/^exe_/),
      lastRecordCount: 1,
      skippedChecks: 0,
    });
    expect(await listPolls(stateDir)).toEqual([state]);
  });

  it('never runs two polls of one stream at once: a check due while one runs is skipped and said', async () => {
    const feed = await feedOf();
    feed.hold();
    const clock = testClock();
    const start = clock.now();
    const stateDir = await stateFolder();
    const { startPoll, read } = pollStarter(stateDir);
    // A second trigger polling the same stream: it is skipped while the first one's poll runs.
    const config = { polls: [pollTrigger(feed.url), pollTrigger(feed.url, { pollTriggerId: 'poll_twin' })] };
    const { receiver } = await startReceiver({ stateDir, clock, config, startPoll });
    await clock.advance(0);
    await feed.arrived(1);
    await clock.advance(5 * MINUTE);
    await clock.advance(5 * MINUTE);
    expect(feed.seen).toMatchObject({ requests: 1, inFlight: 1 });
    const [items, twin] = receiver.polls();
    expect(items).toMatchObject({
      state: 'active',
      skippedChecks: 2,
      lastSkippedAt: new Date(start + 10 * MINUTE).toISOString(),
      stateMessage: `the check due at ${new Date(start + 10 * MINUTE).toISOString()} was skipped: a poll of the same stream was still running`,
      nextCheckAt: new Date(start + 15 * MINUTE).toISOString(),
      lastCheckedAt: null,
    });
    expect(twin).toMatchObject({ skippedChecks: 3, lastCheckedAt: null });
    feed.release();
    await receiver.pollsSettled();
    expect(receiver.polls()[0]).toMatchObject({ lastCheckedAt: new Date(start).toISOString(), lastRecordCount: 2 });
    await clock.advance(5 * MINUTE);
    await receiver.pollsSettled();
    // Due together again: the stream is read once, by the first; the twin's check is skipped.
    expect(feed.seen).toMatchObject({ requests: 2, inFlight: 0, maxInFlight: 1 });
    expect(read).toHaveLength(2);
    expect(receiver.polls()[1]).toMatchObject({ skippedChecks: 4 });
  });

  it('keeps a failure typed in its state, never a secret, and the next poll still comes', async () => {
    const feed = await feedOf();
    feed.fail();
    const clock = testClock();
    const start = clock.now();
    const stateDir = await stateFolder();
    const { startPoll } = pollStarter(stateDir);
    const { receiver, logs } = await startReceiver({
      stateDir,
      clock,
      config: { polls: [pollTrigger(feed.url)] },
      startPoll,
    });
    await clock.advance(0);
    await receiver.pollsSettled();
    expect(receiver.polls()[0]).toMatchObject({
      state: 'failing',
      stateMessage: 'the last poll failed: permission_denied',
      lastCheckedAt: new Date(start).toISOString(),
      nextCheckAt: new Date(start + 5 * MINUTE).toISOString(),
      lastRecordCount: null,
    });
    expect(logs.find((entry) => entry.level === 'error')).toMatchObject({ code: 'permission_denied' });
    expect(JSON.stringify(logs)).not.toContain(TOKEN);
    expect(await everyFile(stateDir)).not.toContain(TOKEN);
    await clock.advance(5 * MINUTE);
    await receiver.pollsSettled();
    expect(receiver.polls()[0]).toMatchObject({ state: 'active', stateMessage: null, lastRecordCount: 2 });
    expect(feed.seen.after).toEqual([null, null]);
  });

  it('keeps nextCheckAt across a restart: the next poll comes then, not at once, and not lost', async () => {
    const feed = await feedOf();
    const clock = testClock();
    const start = clock.now();
    const stateDir = await stateFolder();
    const config = { polls: [pollTrigger(feed.url)] };
    const first = await startReceiver({ stateDir, clock, config, startPoll: pollStarter(stateDir).startPoll });
    await clock.advance(0);
    await first.receiver.close();
    expect(feed.seen.requests).toBe(1);
    await clock.advance(2 * MINUTE);
    const { startPoll, read } = pollStarter(stateDir);
    const second = await startReceiver({ stateDir, clock, config, startPoll });
    expect(second.receiver.polls()[0]).toMatchObject({ nextCheckAt: new Date(start + 5 * MINUTE).toISOString() });
    await clock.advance(0);
    await clock.advance(2 * MINUTE);
    expect(feed.seen.requests).toBe(1);
    feed.items.push({ id: 'c', updated_at: at(3) });
    await clock.advance(MINUTE);
    await second.receiver.pollsSettled();
    expect(read).toEqual([[{ id: 'c', updated_at: at(3) }]]);
    await second.receiver.close();
    // Down past its due time: the check is due at once when a receiver listens again.
    await clock.advance(20 * MINUTE);
    const third = await startReceiver({ stateDir, clock, config, startPoll: pollStarter(stateDir).startPoll });
    expect(third.receiver.polls()[0]).toMatchObject({ nextCheckAt: new Date(start + 10 * MINUTE).toISOString() });
    await clock.advance(0);
    await third.receiver.pollsSettled();
    expect(feed.seen.requests).toBe(3);
    expect(third.receiver.polls()[0]).toMatchObject({
      lastCheckedAt: new Date(start + 25 * MINUTE).toISOString(),
      nextCheckAt: new Date(start + 30 * MINUTE).toISOString(),
    });
  });

  it('is paused, and never polled, when its status is not active', async () => {
    const feed = await feedOf();
    const clock = testClock();
    const stateDir = await stateFolder();
    const { startPoll } = pollStarter(stateDir);
    const config = { polls: [pollTrigger(feed.url, { status: 'disabled' })] };
    const { receiver } = await startReceiver({ stateDir, clock, config, startPoll });
    await clock.advance(60 * MINUTE);
    await receiver.pollsSettled();
    expect(feed.seen.requests).toBe(0);
    expect(await listPolls(stateDir)).toEqual([
      expect.objectContaining({
        state: 'paused',
        nextCheckAt: null,
        stateMessage: 'not polled: its status is not active',
      }),
    ]);
  });
});
