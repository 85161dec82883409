import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
import { REDACTED } from '@plugboard/sdk/host';
import { z } from 'zod';
import {
  answer,
  type FaultServer,
  recordScenario,
  replayScenario,
  startFaultServer,
  TestingKitError,
  UnrecordedRequestError,
  UnusedRecordingError,
} from '../src/index.js';
import { FIXTURE_FORMAT, serializeFixture } from '../src/fixture.js';
import { FixtureNotFoundError } from '../src/errors.js';
import { accountGet, invoicesCreate, sample, Task } from './sample/connector.js';
import { FIXTURES_DIR, invoiceCreate, tasksFull } from './sample/scenarios.js';

/** Replay is strict: what was not recorded fails, what was recorded and not used fails, and the messages say what to fix. */

let dir: string;
let server: FaultServer | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugboard-strict-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a request that was not recorded', () => {
  it('fails the replay naming its method and path, and lists the recorded calls left', async () => {
    const error = await replayScenario({
      connector: sample,
      scenario: { ...tasksFull, input: { limit: 3 } },
      fixturesDir: FIXTURES_DIR,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnrecordedRequestError);
    const message = (error as Error).message;
    expect(message).toContain("scenario 'tasks-full'");
    expect(message).toContain('GET /v1/tasks?limit=3 (no body)');
    expect(message).toContain('Recorded calls not used yet:\n  GET /v1/tasks?limit=2\n');
    expect(message).toContain('tasks-full.json');
  });

  it('names the body when the body differs', async () => {
    const changed = { ...invoiceCreate, input: { customer: 'cus_42', amount_cents: 999, memo: 'March' } };
    const error = await replayScenario({ connector: sample, scenario: changed, fixturesDir: FIXTURES_DIR }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UnrecordedRequestError);
    expect((error as Error).message).toContain(
      'POST /v1/invoices body {"customer":"cus_42","amount_cents":999,"memo":"March"}',
    );
    expect((error as Error).message).toContain(
      'POST /v1/invoices body {"amount_cents":1250,"customer":"cus_42","memo":"March"}',
    );
  });

  it('is blocked from the network: a direct fetch to a live local server fails the replay and never arrives', async () => {
    server = await startFaultServer(answer({ body: { id: 'x' } }));
    const target = `${server.url}/side-channel?x=1`;
    const sneaky = defineConnector({
      key: 'sneaky',
      name: 'Sneaky',
      version: '1.0.0',
      vendor: null,
      category: 'developer',
      status: 'alpha',
      summary: 'Calls the network behind the SDK.',
      auth: bearerToken(),
      actions: [
        defineAction({
          key: 'things.get',
          label: 'Get a thing',
          direction: 'source',
          entity: z.object({ id: z.string() }).meta({ id: 'SneakyThing' }),
          input: z.object({}),
          async *read() {
            const response = await fetch(target, { method: 'POST', body: 'hello' });
            yield { records: [(await response.json()) as { id: string }] };
          },
        }),
      ],
    });
    const fixture = {
      format: FIXTURE_FORMAT,
      connector: { key: 'sneaky', version: '1.0.0' },
      scenario: { name: 'thing', action: 'things.get', input: {} },
      basePath: '',
      calls: [],
      outcome: { pages: 1, records: [{ id: 'x' }] },
    } as const;
    await writeFile(join(dir, 'thing.json'), serializeFixture(structuredClone(fixture) as never));

    const error = await replayScenario({ connector: sneaky, scenario: 'thing', fixturesDir: dir }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UnrecordedRequestError);
    expect((error as Error).message).toContain(`POST ${target} body hello`);
    expect(server.count).toBe(0);

    // A host the caller allows on purpose is reachable.
    const allowed = await replayScenario({
      connector: sneaky,
      scenario: 'thing',
      fixturesDir: dir,
      allowHosts: ['127.0.0.1'],
    });
    expect(allowed.records).toEqual([{ id: 'x' }]);
    expect(server.count).toBe(1);
  });
});

describe('a recorded call the run never made', () => {
  it('fails the replay naming each unused call', async () => {
    const firstPageOnly = defineAction({
      key: 'tasks.list',
      label: 'List tasks',
      direction: 'source',
      entity: Task,
      input: z.object({ limit: z.number().default(2) }),
      async *read(ctx, input) {
        const page = await ctx.http.get<{ data: z.input<typeof Task>[] }>('/tasks', { query: { limit: input.limit } });
        yield { records: page.data };
      },
    });
    const stopsEarly = defineConnector({ ...sample, actions: [firstPageOnly, accountGet, invoicesCreate] });
    const error = await replayScenario({ connector: stopsEarly, scenario: tasksFull, fixturesDir: FIXTURES_DIR }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UnusedRecordingError);
    const message = (error as Error).message;
    expect(message).toContain('2 recorded calls were never made');
    expect(message).toContain(`GET /v1/tasks?cursor=2&limit=2&access_token=${REDACTED}`);
    expect(message).toContain(`GET /v1/tasks?cursor=4&limit=2&access_token=${REDACTED}`);
  });
});

describe('fixtures that do not fit', () => {
  it('a scenario never recorded fails with where the fixture should be and how to record it', async () => {
    const error = await replayScenario({
      connector: sample,
      scenario: { name: 'nope', action: 'account.get' },
      fixturesDir: dir,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FixtureNotFoundError);
    expect((error as Error).message).toContain(join(dir, 'nope.json'));
    expect((error as Error).message).toContain('plugboard record');
  });

  it('a fixture recorded for another action is refused', async () => {
    const error = await replayScenario({
      connector: sample,
      scenario: { ...tasksFull, action: 'account.get' },
      fixturesDir: FIXTURES_DIR,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TestingKitError);
    expect((error as Error).message).toContain("recorded for action 'tasks.list'");
  });
});

describe('redacted values match anything at replay', () => {
  const Login = z.object({ ok: z.boolean(), user: z.string() }).meta({ id: 'LoginResult' });
  const vault = defineConnector({
    key: 'vault',
    name: 'Vault',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'alpha',
    summary: 'Sends secrets from its input, in the body and the query.',
    auth: bearerToken(),
    actions: [
      defineAction({
        key: 'logins.check',
        label: 'Check a login',
        direction: 'destination',
        entity: Login,
        input: z.object({ user: z.string(), password: z.string(), apiKey: z.string() }),
        async write(ctx, input) {
          return ctx.http.post(
            '/login',
            { user: input.user, password: input.password, note: `pw is ${input.password}` },
            { query: { api_key: input.apiKey, user: input.user } },
          );
        },
      }),
    ],
  });
  const password = 'hunter2-correct-horse';
  const apiKey = 'ak_live_0123456789';
  const scenario = { name: 'login', action: 'logins.check', input: { user: 'ada', password, apiKey } };

  it('records the secrets from the input as redacted, then matches them as wildcards', async () => {
    server = await startFaultServer(answer({ body: { ok: true, user: 'ada' } }));
    const recorded = await recordScenario({
      connector: vault,
      scenario,
      fixturesDir: dir,
      baseUrl: server.url,
      credential: 'vault-token-123456',
      secrets: [password, apiKey],
    });
    const text = await readFile(recorded.fixturePath, 'utf8');
    expect(text).not.toContain(password);
    expect(text).not.toContain(apiKey);
    const call = recorded.fixture.calls[0]!;
    expect(call.request.path).toBe(`/login?api_key=${REDACTED}&user=ada`);
    expect(call.request.body).toEqual({ user: 'ada', password: REDACTED, note: `pw is ${REDACTED}` });
    expect(recorded.fixture.scenario.input).toEqual({ user: 'ada', password: REDACTED, apiKey: REDACTED });
    await server.close();
    server = undefined;

    // The real values are sent again at replay; they match the redacted recording.
    const again = await replayScenario({ connector: vault, scenario, fixturesDir: dir });
    expect(again.records).toEqual([{ ok: true, user: 'ada' }]);
    // Other values too: a redacted value is a wildcard.
    const other = await replayScenario({
      connector: vault,
      scenario: { ...scenario, input: { user: 'ada', password: 'another-password', apiKey: 'ak_other_987654' } },
      fixturesDir: dir,
    });
    expect(other.records).toEqual([{ ok: true, user: 'ada' }]);
    // The scenario stored in the fixture (its secrets redacted) replays as well.
    expect((await replayScenario({ connector: vault, scenario: 'login', fixturesDir: dir })).records).toHaveLength(1);
    // What was not redacted still has to match.
    await expect(
      replayScenario({
        connector: vault,
        scenario: { ...scenario, input: { user: 'bob', password, apiKey } },
        fixturesDir: dir,
      }),
    ).rejects.toThrow(UnrecordedRequestError);
  });
});
