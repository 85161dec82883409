export { recordScenario } from './record.js';
export type { RecordOptions, RecordResult } from './record.js';
export { replayScenario } from './replay.js';
export { REPLAY_CREDENTIAL, replayCredential } from './credential.js';
export type { CredentialSource } from './credential.js';
export type { ReplayOptions, ReplayResult } from './replay.js';
export type { PagingEndEntry } from './run.js';
export { defineScenario } from './scenario.js';
export type { Scenario, ScenarioExpectation } from './scenario.js';
export { FIXTURE_FORMAT, fixturePath, readFixtureSync } from './fixture.js';
export type {
  BodyType,
  Fixture,
  OutcomeError,
  RecordedCall,
  RecordedHeaders,
  RecordedOutcome,
  RecordedRequest,
  RecordedResponse,
  StoredScenario,
} from './fixture.js';
export { catalogueProblems, outcomeProblems, pagingProblems } from './checks.js';
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
export {
  TestingKitError,
  SecretLeakError,
  RecordingError,
  UnrecordedRequestError,
  UnusedRecordingError,
} from './errors.js';
export { billableFaultProblems, errorMappingProblems, incrementalProblems } from './probes.js';
export type { FaultProbe, IncrementalProbe } from './probes.js';
export { pagingEndProblems, pagingLoopProblems } from './paging-checks.js';
export type { LoopProbe } from './paging-checks.js';
export { startWindowServer, type WindowServer, type WindowServerOptions } from './window-server.js';
export { recordedExamples } from './examples.js';
export type { RecordedExample } from './examples.js';
