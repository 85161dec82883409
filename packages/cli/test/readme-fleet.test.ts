import { type InsuranceSimulator, startInsuranceSimulator } from '@plugboard/simulator-insurance';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { runCli } from '../src/index.js';
import { useFleetServers } from './fleet-servers.js';
import { bufferIo, PACK } from './support.js';

/**
 * The root README's worker fleet, followed line by line: the servers are this test's own (the
 * README's Redis line and exports are checked, not run), the provider is the insurance simulator
 * and ./plugins a folder holding the insurance connector. Every other word is the README's.
 */
const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');
const section = README.slice(README.indexOf('## A worker fleet'));
const opened = section.indexOf('```sh\n') + 6;
const block = section.slice(opened, section.indexOf('\n```', opened));
const lines = block.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));

/** A line's words, quotes and a trailing comment taken off as a shell would. */
function words(line: string): string[] {
  const found = line.replace(/\s+#.*$/, '').match(/'[^']*'|"[^"]*"|\S+/g) ?? [];
  return found.map((word) => word.replace(/^['"]|['"]$/g, ''));
}

const servers = useFleetServers();
let simulator: InsuranceSimulator;
let plugins: string;
let postgres: string;

beforeAll(async () => {
  postgres = await servers.postgres.database();
  simulator = await startInsuranceSimulator();
  plugins = await mkdtemp(join(tmpdir(), 'plugboard-readme-fleet-'));
  await mkdir(join(plugins, 'node_modules', '@plugboard'), { recursive: true });
  await symlink(
    fileURLToPath(new URL('../../../connectors/insurance', import.meta.url)),
    join(plugins, 'node_modules', '@plugboard', 'connector-insurance'),
    'dir',
  );
});
afterAll(async () => {
  await simulator?.close();
  if (plugins) await rm(plugins, { recursive: true, force: true });
});

/** A README line as the CLI's arguments and environment, on this test's servers, provider and plugins. */
function command(line: string) {
  const all = words(line);
  const env: Record<string, string> = {
    PLUGBOARD_REDIS_URL: servers.redis.url,
    PLUGBOARD_POSTGRES_URL: postgres,
  };
  while (/^[A-Z_]+=/.test(all[0]!)) {
    const [name, value] = all.shift()!.split('=') as [string, string];
    env[name] = value === '...' ? simulator.apiKey : value;
  }
  expect(all.shift()).toBe('plugboard');
  const argv = all.flatMap((word) => {
    if (word === 'https://api.example.com') return [simulator.url];
    if (word === './plugins') return [plugins];
    // A free port, on loopback only.
    if (word === '9464') return ['0', '--metrics-host', '127.0.0.1'];
    return [word];
  });
  return { argv, env };
}

describe("the README's worker fleet", () => {
  test('its servers are the ones a fleet needs', () => {
    expect(lines[0]).toMatch(/^redis-server .*--appendonly yes.*--maxmemory-policy noeviction/);
    expect(lines.filter((line) => line.startsWith('export ')).map((line) => words(line)[1]!.split('=')[0])).toEqual([
      'PLUGBOARD_REDIS_URL',
      'PLUGBOARD_POSTGRES_URL',
    ]);
  });

  test('migrates, starts a worker, runs, schedules and lists, each command exiting 0', async () => {
    const commands = lines.filter((line) => !line.startsWith('redis-server') && !line.startsWith('export '));
    const workerLine = commands.findIndex((line) => words(line).includes('worker'));
    expect(workerLine).toBeGreaterThan(0);
    const pack = new Map([['insurance', PACK.get('insurance')!]]);
    for (const line of commands.slice(0, workerLine)) {
      const { argv, env } = command(line);
      const buffered = bufferIo(env);
      expect(await runCli(argv, buffered.io, { pack }), `${line}\n${buffered.stderr()}`).toBe(0);
    }
    const controller = new AbortController();
    const started = command(commands[workerLine]!);
    const worker = bufferIo(started.env);
    const running = runCli(started.argv, worker.io, { pack: new Map(), signal: controller.signal });
    try {
      await vi.waitFor(() => expect(worker.stderr()).toContain('worker ready'), { timeout: 20_000 });
      for (const line of commands.slice(workerLine + 1)) {
        const { argv, env } = command(line);
        const buffered = bufferIo(env);
        expect(await runCli(argv, buffered.io, { pack }), `${line}\n${buffered.stderr()}`).toBe(0);
      }
      const listed = bufferIo(command('plugboard runs list --json').env);
      expect(await runCli(['runs', 'list', '--json'], listed.io, { pack })).toBe(0);
      // The submitted run, taken by the worker and ended; the schedule's first run, maybe.
      expect(listed.stdout()).toContain('"action":"travel_policies.list","connectionId":"default"');
      expect(listed.stdout()).toContain('"status":"succeeded"');
    } finally {
      controller.abort();
      expect(await running).toBe(0);
    }
    expect(worker.stderr()).toContain('metrics at http://127.0.0.1:');
  });
});
