import type {
  ApprovalDecision,
  Environment,
  LogEntry,
  LogLevel,
  Page,
  ConnectionInput,
  ConnectionCredential,
  ProgressEvent,
  RetrySettings,
  TokenSet,
} from '@plugboard/sdk';
import type { ActionToolDescription, PreparedAction } from '@plugboard/sdk/host';
import type { WireError } from './wire.js';

/**
 * The messages between the host and a plugin's process. The host's come first with the nonce
 * and the start settings; every message of the plugin's process quotes the nonce.
 */

export interface StartMessage {
  type: 'start';
  nonce: string;
  /** The entry file, by its real path inside the package, and as the manifest writes it. */
  entryPath: string;
  entry: string;
  /** The package's folder (real path). */
  dir: string;
  /** The folders whose imports of `@plugboard/sdk` go to this process's SDK. */
  sdkRoots: string[];
  /** Address ranges the plugin's requests may reach whatever their class (the transport's `network.allow`). */
  allow?: string[];
  /** The plugin's budgets are shared through this Redis with every other process using it. */
  redis?: SharedRedis;
  /** The description also gives each action's tool (`described.connector.tools`): its schemas cost time to compute. */
  tools?: true;
}

/** Pages a run may send before the host acknowledged any: the one it asked for and one ahead; each acknowledgement allows one more. */
export const FIRST_PAGES = 2;

/** The log entries and progress updates of one run the host passes on; the rest are dropped, and that is said once. */
export const MAX_RUN_NOTES = 10_000;

/**
 * The token sets one run may ask the host for within `TOKEN_ASK_WINDOW_MS` of the host's clock
 * (its first, one per expiry, one per 401): a long read asks as often as its tokens expire; a
 * plugin that asks faster is killed.
 */
export const MAX_TOKEN_ASKS = 64;
export const TOKEN_ASK_WINDOW_MS = 60_000;

/** The Redis a plugin's budgets are shared through: plain data, as it crosses the channel. */
export type SharedRedis = string | { url: string; prefix?: string; probeTtlMs?: number; idleTtlMs?: number };

export type HostMessage =
  | {
      type: 'prepare';
      id: string;
      action: string;
      /** Prepares the listing of this input field's options instead, `input` being its query. */
      field?: string;
      input: unknown;
      connection?: ConnectionInput;
      environment?: Environment;
    }
  | { type: 'resume'; id: string; plan: string; checkpoint: unknown; version?: number }
  | {
      type: 'run';
      id: string;
      plan: string;
      /**
       * This run's credential, in its scheme's shape: the process holds it for this run only. An
       * OAuth2 one holds the client id and the access token part only: the host keeps the token
       * lifecycle, and the run asks it for token sets (`tokens`).
       */
      credential: ConnectionCredential;
      /** The run's token sets come from the host: asked with a `tokens` message, answered with one. */
      hostTokens?: true;
      approval?: ApprovalDecision;
      /** The host's time, which the approval's expiry is checked against. */
      now: string;
      logLevel: LogLevel;
      retry?: Partial<RetrySettings>;
      /** The destination's idempotency key as the provider gets it (`ctx.idempotencyKey`). */
      idempotencyKey?: string;
    }
  /** The answer to the run's ask number `ask`: a token set's access part, or the failure to get one. */
  | { type: 'tokens'; id: string; ask: number; tokens?: TokenSet; error?: WireError }
  | { type: 'pull'; id: string }
  | { type: 'cancel'; id: string }
  /** Asks the process for its memory, which it answers at once (`usage`). */
  | { type: 'usage'; id: string };

/** A prepared run as the plugin's process describes it; the host computes its digest itself. */
export interface WirePlan
  extends Pick<
    PreparedAction,
    'action' | 'input' | 'environment' | 'checkpoint' | 'checkpointVersion' | 'needsApproval'
  > {
  id: string;
  /** The connection, and the id of the auth scheme it uses. */
  connection: { id: string; scheme?: string };
}

export interface DescribedConnector {
  key: string;
  name: string;
  connectorVersion: string;
  actions: Array<{ key: string; label: string; direction: 'source' | 'destination' }>;
  /** Each action as a tool server needs it, when the host asked (`StartMessage.tools`). */
  tools?: ActionToolDescription[];
  /** The connector's OAuth2 schemes as declared: the host sends their token requests. */
  oauth2?: unknown[];
}

export type ChildMessage =
  | { type: 'described'; connector: DescribedConnector }
  | { type: 'failed'; reason: string }
  | { type: 'prepared'; id: string; plan: WirePlan }
  | { type: 'page'; id: string; page: Page }
  | { type: 'progress'; id: string; event: ProgressEvent }
  | { type: 'log'; id: string; entry: LogEntry }
  /** A run asks the host for its current token set, or (`refused`: the ask whose set got a 401) a newer one. */
  | { type: 'tokens'; id: string; ask: number; refused?: number }
  | { type: 'done'; id: string }
  | { type: 'error'; id: string; error: WireError }
  /** The process's memory in bytes, as `process.memoryUsage()` counts it. */
  | { type: 'usage'; id: string; rss: number; heapUsed: number };
