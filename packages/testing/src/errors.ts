/**
 * Failures of the testing kit itself. Each message says what went wrong, where,
 * and what to do about it; none of them ever quotes a secret value.
 */

export class TestingKitError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** No fixture for a scenario: it was never recorded, or the name changed. */
export class FixtureNotFoundError extends TestingKitError {
  readonly fixturePath: string;

  constructor(scenario: string, fixturePath: string) {
    super(
      `scenario '${scenario}': no fixture at ${fixturePath}; record it first (recordScenario, or \`plugboard record <connector> <action> --scenario ${scenario}\`)`,
    );
    this.fixturePath = fixturePath;
  }
}

/** A fixture file that is not one of ours, or is damaged. */
export class InvalidFixtureError extends TestingKitError {
  constructor(fixturePath: string, problem: string) {
    super(`${fixturePath}: not a valid Plugboard fixture: ${problem}`);
  }
}

/** A secret value would have been written to a fixture; nothing was written. */
export class SecretLeakError extends TestingKitError {
  /** Where in the fixture the secret was found, e.g. `calls[0].response.body.token`. */
  readonly locations: readonly string[];

  constructor(scenario: string, locations: readonly string[]) {
    super(
      `scenario '${scenario}': a secret value would still be written to the fixture at ${locations.join(', ')}; nothing was written. ` +
        'Redaction could not remove it (binary body, compressed chunk or an unusual encoding); add the field to redactKeys or change the scenario.',
    );
    this.locations = locations;
  }
}

/** The recording run itself failed, or did not fail as the scenario expected; nothing was written. */
export class RecordingError extends TestingKitError {}

/** Replay: the action sent a request no recorded call matches. */
export class UnrecordedRequestError extends TestingKitError {
  readonly requests: readonly string[];

  constructor(scenario: string, fixturePath: string, requests: readonly string[], unused: readonly string[]) {
    const lines = [
      `scenario '${scenario}': the action sent ${requests.length === 1 ? 'a request' : `${requests.length} requests`} that ${fixturePath} did not record:`,
      ...requests.map((request) => `  ${request}`),
    ];
    if (unused.length > 0) lines.push('Recorded calls not used yet:', ...unused.map((call) => `  ${call}`));
    else lines.push('Every recorded call had been used.');
    lines.push('If the change is intended, re-record the scenario.');
    super(lines.join('\n'));
    this.requests = requests;
  }
}

/** Replay: recorded calls the action never made. */
export class UnusedRecordingError extends TestingKitError {
  readonly calls: readonly string[];

  constructor(scenario: string, fixturePath: string, calls: readonly string[]) {
    super(
      [
        `scenario '${scenario}': ${calls.length === 1 ? 'a recorded call was' : `${calls.length} recorded calls were`} never made by the action (${fixturePath}):`,
        ...calls.map((call) => `  ${call}`),
        'The action stopped early or changed its requests; fix it, or re-record the scenario if the change is intended.',
      ].join('\n'),
    );
    this.calls = calls;
  }
}
