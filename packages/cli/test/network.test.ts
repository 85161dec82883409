import { startInsuranceSimulator } from '@plugboard/simulator-insurance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { bufferIo, PACK } from './support.js';

/** `plugboard run` under the network policy: production reaches loopback only when PLUGBOARD_ALLOW_NETWORK says so. */
let simulator: Awaited<ReturnType<typeof startInsuranceSimulator>>;
beforeAll(async () => {
  simulator = await startInsuranceSimulator({ port: 0 });
});
afterAll(async () => {
  await simulator.close();
});

const run = async (environment: 'sandbox' | 'production', allow?: string) => {
  const buffers = bufferIo({
    PLUGBOARD_CREDENTIAL: simulator.apiKey,
    ...(allow === undefined ? {} : { PLUGBOARD_ALLOW_NETWORK: allow }),
  });
  const argv = [
    'run',
    'insurance',
    'motor_quotes.create',
    '--input',
    JSON.stringify({ vehicle: { value: 1 } }),
    '--base-url',
    simulator.url,
    '--environment',
    environment,
  ];
  const code = await runCli(argv, buffers.io, { pack: PACK });
  const stderr = buffers.stderr().trim().split('\n').at(-1) ?? '';
  return {
    code,
    stdout: buffers.stdout(),
    error: stderr ? (JSON.parse(stderr) as { code: string; message: string; statusCode: number }) : undefined,
  };
};

describe('plugboard run and the network policy', () => {
  it('refuses a production run to a loopback address, before sending anything', async () => {
    const before = simulator.requests.length;
    const refused = await run('production');
    expect(refused.code).toBe(2);
    expect(refused.error).toMatchObject({ code: 'address_refused', statusCode: 403 });
    expect(refused.error?.message).toContain('the host 127.0.0.1 is a loopback address');
    expect(simulator.requests.length).toBe(before);
  });

  it('runs it with PLUGBOARD_ALLOW_NETWORK naming loopback; the sandbox needs nothing', async () => {
    for (const outcome of [await run('production', '10.0.0.0/8, 127.0.0.0/8'), await run('sandbox')]) {
      expect(outcome.code, JSON.stringify(outcome.error)).toBe(0);
      expect(outcome.error).toBeUndefined();
    }
  });

  it('takes a range that is not one for bad input', async () => {
    const wrong = await run('production', '127.0.0.0/33');
    expect(wrong.code).toBe(2);
    expect(wrong.error?.message).toContain('PLUGBOARD_ALLOW_NETWORK: "127.0.0.0/33" is not an address range');
  });
});
