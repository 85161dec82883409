import { APPROVALS } from './approvals.js';
import { AUTH } from './auth.js';
import { CATALOGUE } from './catalogue.js';
import { CHECK } from './check.js';
import type { CommandSpec } from './command-spec.js';
import { DB } from './db.js';
import { DESCRIBE } from './describe.js';
import { IDEMPOTENCY } from './idempotency.js';
import { MOCK } from './mock.js';
import { NEW } from './new.js';
import { OPTIONS } from './options.js';
import { PLUGINS } from './plugins.js';
import { SUBMIT, WORKER } from './queue.js';
import { RECORD } from './record.js';
import { REPLAY } from './replay.js';
import { RUN } from './run.js';
import { SCHEDULE } from './schedule.js';
import { RUNS } from './runs.js';
import { SIMULATE } from './simulate.js';
import { TEST } from './test.js';
import { TRIGGERS } from './triggers.js';

export type { ArgumentSpec, CommandSpec, OptionSpec } from './command-spec.js';

/** The commands of `plugboard`, in the order its help lists them. One file a command: to add one, add its file here. */
export const GRAMMAR: readonly CommandSpec[] = [
  NEW,
  RUN,
  RECORD,
  REPLAY,
  TEST,
  CATALOGUE,
  PLUGINS,
  IDEMPOTENCY,
  MOCK,
  AUTH,
  CHECK,
  OPTIONS,
  DESCRIBE,
  SIMULATE,
  DB,
  SUBMIT,
  WORKER,
  SCHEDULE,
  RUNS,
  TRIGGERS,
  APPROVALS,
];
