import { startInsuranceSimulator } from '@plugboard/simulator-insurance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { bufferIo, PACK } from './support.js';

/** Creating a policy binds real cover: in production it runs only with an approval of exactly that run. */
let simulator: Awaited<ReturnType<typeof startInsuranceSimulator>>;
beforeAll(async () => {
  simulator = await startInsuranceSimulator({ port: 0 });
});
afterAll(async () => {
  await simulator.close();
});

const policy = JSON.stringify({ quote_id: 'mq_1', holder: { name: 'Ada' } });
const run = async (...extra: string[]) => {
  // Production against the simulator on 127.0.0.1: the host lets loopback through.
  const buffers = bufferIo({ PLUGBOARD_CREDENTIAL: simulator.apiKey, PLUGBOARD_ALLOW_NETWORK: '127.0.0.0/8' });
  const argv = [
    'run',
    'insurance',
    'motor_policies.create',
    '--input',
    policy,
    '--base-url',
    simulator.url,
    '--environment',
    'production',
    ...extra,
  ];
  const code = await runCli(argv, buffers.io, { pack: PACK });
  const stderr = buffers.stderr().trim().split('\n').at(-1) ?? '';
  return {
    code,
    stdout: buffers.stdout(),
    error: stderr ? (JSON.parse(stderr) as { code: string; message: string }) : undefined,
  };
};
const approval = (digest: string, decidedBy: string, expiresAt = '2999-01-01T00:00:00Z') =>
  JSON.stringify({ digest, requestedBy: 'ada@example.com', decidedBy, decision: 'approved', expiresAt });

describe('plugboard run in production', () => {
  it('refuses a billable write without an approval, naming the digest to review', async () => {
    const refused = await run();
    expect(refused.code).toBe(3);
    expect(refused.error?.code).toBe('approval_required');
    expect(refused.error?.message).toMatch(/sha256:[0-9a-f]{64}/);
    expect(simulator.counters().policyWrites).toBe(0);
  });

  it('refuses a self-approval, another digest and an expired approval; runs once with a valid one', async () => {
    const digest = /sha256:[0-9a-f]{64}/.exec((await run()).error!.message)![0];
    for (const [decision, reason] of [
      [approval(digest, 'ada@example.com'), /approve/i],
      [approval(`sha256:${'0'.repeat(64)}`, 'bob@example.com'), /digest/i],
      [approval(digest, 'bob@example.com', '2020-01-01T00:00:00Z'), /expired/i],
    ] as const) {
      const refused = await run('--approval', decision);
      expect(refused.code).toBe(3);
      expect(refused.error?.code).toBe('approval_required');
      expect(refused.error?.message).toMatch(reason);
    }
    expect(simulator.counters().policyWrites).toBe(0);
    const approved = await run('--approval', approval(digest, 'bob@example.com'));
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ quote_id: 'mq_1' });
    expect(simulator.counters().policyWrites).toBe(1);
  });
});
