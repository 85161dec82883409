export { recordScenario } from './record.js';
export type { RecordOptions, RecordResult } from './record.js';
export { replayScenario, describeCall, REPLAY_CREDENTIAL } from './replay.js';
export type { ReplayOptions, ReplayResult } from './replay.js';
export { defineScenario, scenarioProblems } from './scenario.js';
export type { Scenario, ScenarioExpectation } from './scenario.js';
export {
  FIXTURE_FORMAT,
  REPLAY_ORIGIN,
  fixturePath,
  parseFixture,
  readFixture,
  readFixtureSync,
  scenariosIn,
  serializeFixture,
} from './fixture.js';
export type {
  BodyType,
  Fixture,
  OutcomeError,
  RecordedCall,
  RecordedHeaders,
  RecordedOutcome,
  RecordedRequest,
  RecordedResponse,
} from './fixture.js';
export { FixtureRedactor, DEFAULT_REDACT_KEYS } from './redact.js';
export type { RedactionOptions } from './redact.js';
export { textMatches, valueMatches, pathMatches, bodyMatches } from './match.js';
export { catalogueProblems, defaultRecordKey, expectationOf, outcomeProblems, pagingProblems } from './checks.js';
export { nextPageMarker } from './paging.js';
export { answer, delay, reset, truncate, startFaultServer } from './faults.js';
export type {
  Answer,
  AnswerOptions,
  Delay,
  Fault,
  FaultHandler,
  FaultServer,
  Reset,
  SeenRequest,
  Truncate,
} from './faults.js';
export { stableStringify, sortKeys } from './json.js';
export {
  TestingKitError,
  FixtureNotFoundError,
  InvalidFixtureError,
  SecretLeakError,
  RecordingError,
  UnrecordedRequestError,
  UnusedRecordingError,
} from './errors.js';
export { billableFaultProblems, errorMappingProblems, incrementalProblems, runUnderFault } from './probes.js';
export type { FaultProbe, IncrementalProbe } from './probes.js';
export { startWindowServer, type WindowServer, type WindowServerOptions } from './window-server.js';
