import { type InsuranceSimulator, startInsuranceSimulator } from '@plugboard/simulator-insurance';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RedisServer } from '../../sdk/test/support/redis.js';
import { runCli } from '../src/index.js';
import { useFleetServers } from './fleet-servers.js';
import { bufferIo, PACK } from './support.js';

const servers = useFleetServers();
let redis: RedisServer;
let url: string;
let simulator: InsuranceSimulator;

beforeAll(async () => {
  redis = servers.redis;
  url = await servers.database();
  simulator = await startInsuranceSimulator();
});
afterAll(async () => {
  await simulator?.close();
});

const pack = new Map([['insurance', PACK.get('insurance')!]]);

async function schedule(...argv: string[]) {
  const buffered = bufferIo({}, false);
  const code = await runCli(['schedule', ...argv, '--redis', redis.url, '--postgres', url], buffered.io, { pack });
  const lines = buffered
    .stdout()
    .split('\n')
    .filter((line) => line !== '');
  return { code, lines: lines.map((line) => JSON.parse(line)), stderr: buffered.stderr() };
}

const add = (...more: string[]) =>
  schedule('add', 'insurance', 'travel_policies.list', '--base-url', simulator.url, ...more);

describe('plugboard schedule', () => {
  test('add prints the PollTrigger, list shows it, remove takes it out', async () => {
    const added = await add('--connection', 'conn-1', '--every', '2h', '--input', '{"page_size":3}');
    expect(added.code).toBe(0);
    expect(added.lines).toEqual([
      expect.objectContaining({
        kind: 'poll',
        connector: 'insurance',
        operationKey: 'travel_policies.list',
        connectionId: 'conn-1',
        intervalMinutes: 120,
        state: 'waiting',
      }),
    ]);
    const id = added.lines[0].pollTriggerId as string;
    expect((await schedule('list')).lines.map((line) => line.pollTriggerId)).toEqual([id]);
    expect((await schedule('remove', id)).lines).toEqual([{ pollTriggerId: id, removed: true }]);
    expect((await schedule('list')).lines).toEqual([]);
  });

  test('a bad --every is a usage error (exit 2); input the source refuses exits 2 naming the field; nothing kept', async () => {
    const every = await add('--connection', 'conn-1', '--every', '5 minutes');
    expect(every.code).toBe(2);
    expect(every.stderr).toContain('--every');
    const input = await add('--connection', 'conn-1', '--every', '5m', '--input', '{"page_size":"many"}');
    expect(input.code).toBe(2);
    expect(input.stderr).toContain('page_size');
    const settings = await add('--connection', 'conn-1', '--every', '5m', '--settings', '[1]');
    expect(settings.code).toBe(2);
    expect(settings.stderr).toContain('--settings');
    expect((await schedule('list')).lines).toEqual([]);
  });
});
