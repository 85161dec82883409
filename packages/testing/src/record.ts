import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ConnectionCredential,
  type Connector,
  createTransport,
  type Transport,
  type RetrySettings,
} from '@plugboard/sdk';
import { credentialSecrets, errorCodes, MIN_SECRET_LENGTH } from '@plugboard/sdk/host';
import type { CredentialSource } from './credential.js';
import { RecordingError, SecretLeakError } from './errors.js';
import {
  FIXTURE_FORMAT,
  type Fixture,
  fixturePath as pathOf,
  readFixture,
  serializeFixture,
  writeFixtureText,
} from './fixture.js';
import { assertNockOn, exclusive, loadNock, type Nock, settle } from './nock.js';
import { FixtureRedactor } from './redact.js';
import { callsFromRecording, type NockRecording, originRewriter, SetCookieWatch } from './recording.js';
import { outcomeOf, runScenario } from './run.js';
import { assertScenario, type Scenario } from './scenario.js';
import { splitTokenCalls, tokenEndpoint } from './token-calls.js';

/**
 * Recording with `nock.back`: the action runs against a real provider or a
 * simulator while nock's recorder watches; in nock.back's `afterRecord` hook
 * the calls are turned into a fixture, redacted and checked for any secret
 * left, and only then written. A secret that survives redaction fails the
 * recording and nothing is written.
 */

export interface RecordOptions {
  connector: Connector;
  scenario: Scenario;
  /** The connector's `test/fixtures/` folder; the fixture is `<fixturesDir>/<scenario.name>.json`. */
  fixturesDir: string;
  /** The provider or simulator to record against, e.g. `http://127.0.0.1:4010/v1`. */
  baseUrl: string;
  /**
   * The stand-in authorization server the connection signed in at (a host's `authBaseUrl`,
   * sandbox only): its token requests go there, and stay out of the fixture like any other.
   */
  authBaseUrl?: string;
  /**
   * The real credential of the scheme the scenario's connection picks (a string or `{ key }`,
   * `{ username, password }`, `{ clientId, clientSecret?, tokens }`), or the host's resolver for
   * it; no secret part of it (`credentialSecrets`) reaches the fixture. An expired OAuth2 token
   * set is renewed as in any run, and the calls to the scheme's token URL are not recorded.
   */
  credential: CredentialSource;
  /** Other secret values to keep out of the fixture (a webhook secret, a password in the input ...). */
  secrets?: readonly string[];
  /** More secret-like names of headers, parameters and JSON fields (added to the defaults). */
  redactKeys?: readonly string[];
  /** Names that look secret but must stay readable. */
  keepKeys?: readonly string[];
  /** `update` (default): always record, replacing the fixture. `record`: record only when there is no fixture yet. */
  mode?: 'update' | 'record';
  /** Default: a fresh transport for this recording, closed afterwards. One of the caller's must send `via: 'fetch'`, the way nock sees. */
  transport?: Transport;
  retry?: Partial<RetrySettings>;
}

export interface RecordResult {
  fixturePath: string;
  /** False when mode `record` found a fixture and left it alone. */
  written: boolean;
  fixture: Fixture;
  /** The exact text of the file. */
  text: string;
}

/** A shorter secret could be written unnoticed (inside a base64 Basic header, say); refuse before anything is sent. */
function assertSearchable(scenario: string, credential: ConnectionCredential, secrets: readonly string[]): void {
  const named = typeof credential === 'string' ? 'the credential' : 'a secret part of the credential';
  const short = [
    ...(credentialSecrets(credential).some((part) => part.length < MIN_SECRET_LENGTH) ? [named] : []),
    ...secrets.flatMap((secret, index) => (secret.length < MIN_SECRET_LENGTH ? [`secrets[${index}]`] : [])),
  ];
  if (short.length === 0) return;
  throw new RecordingError(
    `scenario '${scenario}': ${short.join(', ')} ${short.length === 1 ? 'is' : 'are'} shorter than ${MIN_SECRET_LENGTH} characters; ` +
      'a secret that short cannot be found reliably in a recording, so it could be written to the fixture. Nothing was recorded; record with a longer secret.',
  );
}

/** Waits until nock's recorder has stored the last answer (its listener finishes after the caller's fetch). */
async function recorderSettled(nock: Nock): Promise<void> {
  let count = -1;
  let quiet = 0;
  while (quiet < 3) {
    await sleep(quiet === 0 ? 0 : 5);
    const now = nock.recorder.play().length;
    quiet = now === count ? quiet + 1 : 0;
    count = now;
  }
}

export function recordScenario(options: RecordOptions): Promise<RecordResult> {
  assertScenario(options.scenario);
  return exclusive(() => record(options));
}

async function record(options: RecordOptions): Promise<RecordResult> {
  const { connector, scenario } = options;
  const action = connector.action(scenario.action);
  if (!action) {
    throw new RecordingError(
      `scenario '${scenario.name}': connector '${connector.key}' has no action '${scenario.action}'`,
    );
  }
  const target = pathOf(options.fixturesDir, scenario.name);
  if ((options.mode ?? 'update') === 'record' && existsSync(target)) {
    const fixture = await readFixture(target);
    return { fixturePath: target, written: false, fixture, text: await readFile(target, 'utf8') };
  }
  assertNockOn();
  const credential = typeof options.credential === 'function' ? await options.credential() : options.credential;
  // Every secret part: a key, a password and its Basic token, an access and a refresh token, a client secret.
  const credentialParts = credentialSecrets(credential);
  if (credentialParts.length === 0) throw new RecordingError(`scenario '${scenario.name}': the credential is empty`);
  assertSearchable(scenario.name, credential, options.secrets ?? []);
  if (options.transport && options.transport.via !== 'fetch') {
    throw new RecordingError(
      `scenario '${options.scenario.name}': the transport must send via 'fetch' (createTransport({ via: 'fetch' })), the way the recorder sees requests. Nothing was recorded.`,
    );
  }
  const baseUrl = new URL(options.baseUrl);
  const redactor = new FixtureRedactor({
    secrets: [...credentialParts, ...(options.secrets ?? [])],
    ...(options.redactKeys ? { redactKeys: options.redactKeys } : {}),
    ...(options.keepKeys ? { keepKeys: options.keepKeys } : {}),
  });
  const rewriteOrigin = originRewriter(baseUrl.origin);
  const tokenUrl = tokenEndpoint(connector, scenario, options.authBaseUrl);

  const nock = await loadNock();
  const staging = await mkdtemp(join(tmpdir(), 'plugboard-record-'));
  const transport = options.transport ?? createTransport({ via: 'fetch' });
  const done: { fixture?: Fixture; text?: string } = {};
  const cookies = new SetCookieWatch();
  try {
    try {
      nock.back.fixtures = staging;
      nock.back.setMode('update');
      let outcome: Fixture['outcome'] | undefined;
      const { nockDone } = await nock.back(`${scenario.name}.json`, {
        recorder: { output_objects: true, enable_reqheaders_recording: true, dont_print: true },
        // The one place a recording is seen before nock.back writes it: redact, check, serialize.
        afterRecord: (recordings) => {
          const recorded = callsFromRecording(recordings as unknown as NockRecording[], baseUrl.origin, cookies);
          const { api, token } = splitTokenCalls(recorded, baseUrl.origin, tokenUrl);
          // The token requests stay out; the tokens they carried stay secrets, wherever else they show up.
          for (const call of token) redactor.learnCall(call);
          const draft: Fixture = {
            format: FIXTURE_FORMAT,
            connector: { key: connector.key, version: connector.version },
            scenario,
            basePath: baseUrl.pathname.replace(/\/+$/, ''),
            calls: rewriteOrigin(api),
            outcome: rewriteOrigin(outcome!),
          };
          const redacted = redactor.redactFixture(draft);
          const serialized = serializeFixture(redacted);
          const leaks = redactor.leaks(redacted);
          if (leaks.length > 0 || redactor.containsSecret(serialized)) {
            throw new SecretLeakError(scenario.name, leaks.length > 0 ? leaks : ['(the serialized file)']);
          }
          done.fixture = redacted;
          done.text = serialized;
          return serialized;
        },
      });
      // On top of nock's recorder, which nock.back has started.
      cookies.start();
      const result = await runScenario(connector, scenario, {
        baseUrl: options.baseUrl,
        credential,
        transport,
        ...(options.secrets ? { secrets: options.secrets } : {}),
        ...(options.retry ? { retry: options.retry } : {}),
        ...(options.authBaseUrl === undefined ? {} : { authBaseUrl: options.authBaseUrl }),
      });
      const expected = scenario.expect?.error;
      // The expected code may be the connector's own or its family's (`quota_exhausted` for a `credits_exhausted`).
      if (result.error && (expected === undefined || !errorCodes(result.error).includes(expected))) {
        throw new RecordingError(
          `scenario '${scenario.name}': the run failed with ${result.error.code}${expected ? ` instead of ${expected}` : ''}: ${redactor.redactText(result.error.message)}; nothing was written`,
          { cause: result.error },
        );
      }
      if (!result.error && expected) {
        throw new RecordingError(
          `scenario '${scenario.name}': the run was expected to fail with ${expected} but succeeded; nothing was written`,
        );
      }
      outcome = outcomeOf(result);
      await recorderSettled(nock);
      nockDone();
    } finally {
      // Before nock puts the original fetch back.
      cookies.stop();
      settle(nock);
      if (!options.transport) await transport.close();
    }
    const { fixture, text } = done;
    if (!fixture || text === undefined)
      throw new RecordingError(`scenario '${scenario.name}': nock.back wrote no recording`);
    // nock.back wrote the redacted text to the staging folder; it moves into place whole.
    const staged = await readFile(join(staging, `${scenario.name}.json`), 'utf8');
    if (staged !== text)
      throw new RecordingError(`scenario '${scenario.name}': the staged recording differs from the redacted one`);
    await writeFixtureText(target, staged);
    return { fixturePath: target, written: true, fixture, text };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
