import { connect } from 'node:net';
import { InvalidInputError } from '@plugboard/sdk';
import { describe, expect, it } from 'vitest';
import { createReceiver } from '../src/index.js';
import {
  deliver,
  ENV,
  receipts,
  secondsOf,
  signed,
  startReceiver,
  stateFolder,
  testClock,
  trigger,
  useCleanup,
} from './support.js';

/**
 * Senders that hold a socket without finishing their request (slowloris): the receiver's server
 * cuts them at its header and request timeouts, answered 408 with nothing kept, and serves the
 * others meanwhile. The timeouts are the server's own (node:http, on real time): made short here so
 * that the test waits for the cut, which it never times.
 */

useCleanup();

const SHORT = { headersTimeoutMs: 300, requestTimeoutMs: 600 };

/** Opens a socket, writes `text` and nothing more; resolves with what came back once the receiver closed it. */
async function holdOpen(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let answer = '';
  socket.on('data', (data: Buffer) => (answer += data.toString('latin1')));
  socket.on('error', () => undefined);
  socket.write(text);
  await new Promise((resolve) => socket.once('close', resolve));
  return answer;
}

describe('slow senders', () => {
  it('cuts a sender that never finishes its headers with 408, and answers another sender meanwhile', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls } = await startReceiver({ stateDir, clock, serverLimits: SHORT });
    const { pathname } = new URL(urls.trg_orders!);
    const slow = holdOpen(
      urls.trg_orders!,
      `POST ${pathname} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-platform-event-id: evt_slow\r\n`,
    );
    expect(await deliver(urls.trg_orders!, clock, { id: 1 })).toMatchObject({ status: 200 });
    expect(await slow).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('cuts a sender whose body never ends with 408, keeping nothing of it', async () => {
    const clock = testClock();
    const stateDir = await stateFolder();
    const { urls, receiver, logs } = await startReceiver({ stateDir, clock, serverLimits: SHORT });
    const { pathname } = new URL(urls.trg_orders!);
    const body = JSON.stringify({ id: 2 });
    const head = Object.entries({
      ...signed(body, { eventId: 'evt_trickle', timestamp: secondsOf(clock) }),
      host: '127.0.0.1',
      'content-length': '1000',
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const answer = await holdOpen(urls.trg_orders!, `POST ${pathname} HTTP/1.1\r\n${head}\r\n${body}`);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    await receiver.close();
    // Cut before its body ended, it was never a delivery: no receipt, nothing logged as a failure.
    expect(await receipts(stateDir)).toEqual([]);
    expect(logs).toEqual([]);
    // The same event id, sent whole afterwards, is new: nothing of the cut one was kept as accepted.
    const again = await startReceiver({ stateDir, clock });
    expect(await deliver(again.urls.trg_orders!, clock, { id: 2 }, 'evt_trickle')).toMatchObject({
      status: 200,
      body: { accepted: true, duplicate: false },
    });
  });

  it('refuses limits that are not whole numbers, or a request timeout shorter than the headers', async () => {
    const stateDir = await stateFolder();
    const receiver = (serverLimits: Record<string, number>) => () =>
      createReceiver({ config: { triggers: [trigger()] }, env: ENV, stateDir, serverLimits });
    expect(receiver({ headersTimeoutMs: 0.5 })).toThrow(InvalidInputError);
    expect(receiver({ headersTimeoutMs: 0.5 })).toThrow(
      'serverLimits.headersTimeoutMs: must be a whole number of 1 or more',
    );
    expect(receiver({ headersTimeoutMs: 2_000, requestTimeoutMs: 1_000 })).toThrow(
      'serverLimits.requestTimeoutMs: must be at least headersTimeoutMs',
    );
  });
});
