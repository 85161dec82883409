import { randomUUID } from 'node:crypto';
import {
  type ApprovalDecision,
  ApprovalRefusedError,
  ApprovalRequiredError,
  ConnectorError,
  excerpt,
  type Environment,
  InvalidInputError,
  type Page,
  QuotaExhaustedError,
} from '@plugboard/sdk';
import {
  type CheckpointStore,
  checkpointToStore,
  type ExecuteRequest,
  type ExecutionEvent,
  type Executor,
} from '@plugboard/sdk/host';
import { decodeCursor, encodeCursor } from './cursor.js';
import { type ActionTool, CALL_ARGUMENTS } from './tools.js';

/**
 * One tool call, through the one executor with everything it enforces: the action's input is
 * the arguments but the call's own (`cursor`, `idempotencyKey`, `approvalId`), checked by the
 * executor before anything is sent. A source answers one page and the cursor of the next; a
 * destination its result. A failure is a tool error naming its typed code (a bad argument names
 * the field); an action that needs an approval runs only with one a person other than the caller
 * gave (`approvals`), else the answer is the pending approval to decide.
 */

/** Where the approvals of calls are asked for and taken from: a store a person decides in. */
export interface ApprovalDesk {
  /** The decision for the executor's gate, for the caller's call; its `use` marks it used once. */
  decisionFor(approvalId: string): Promise<ApprovalDecision>;
  /** Asks for an approval of the call the gate refused; gives what the agent is told. */
  request(call: PendingCall): Promise<{ id: string; expiresAt: string | null; url?: string }>;
}

export interface PendingCall {
  digest: string;
  shortDigest: string;
  connector: string;
  action: string;
  tool: string;
  environment: Environment;
  /** What will happen, for the person who decides: the action and its input as the agent gave it. */
  summary: string;
  requestedBy: string;
}

export interface ToolHost {
  executor: Executor;
  connectionId: string;
  environment: Environment;
  /** The checkpoint store the executor keeps checkpoints in: a cursor is resumed through it. */
  checkpoints: CheckpointStore;
  approvals?: ApprovalDesk | undefined;
}

export interface CallContext {
  /** Who asks: `--caller` over stdio, the access token's subject over HTTP. */
  caller: string;
  signal?: AbortSignal | undefined;
  onProgress?: ((event: ExecutionEvent) => void) | undefined;
}

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const MAX_ID_CHARS = 200;

/** Stops a source's run at its first page, which it carries. */
class FirstPage {
  constructor(readonly page: Page) {}
}

const answer = (structured: Record<string, unknown>): ToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(structured) }],
  structuredContent: structured,
});

const toolError = (text: string, structured?: Record<string, unknown>): ToolResult => ({
  content: [{ type: 'text', text }],
  ...(structured ? { structuredContent: structured } : {}),
  isError: true,
});

/** The call's own arguments apart from the action's input; each checked, naming the field. */
function splitArguments(tool: ActionTool, args: Record<string, unknown>) {
  const input: Record<string, unknown> = {};
  const own: Partial<Record<(typeof CALL_ARGUMENTS)[number], string>> = {};
  for (const [name, value] of Object.entries(args)) {
    if (!(CALL_ARGUMENTS as readonly string[]).includes(name) || !(name in (tool.inputSchema.properties as object))) {
      input[name] = value;
      continue;
    }
    if (typeof value !== 'string' || value.length === 0 || (name !== 'cursor' && value.length > MAX_ID_CHARS))
      throw new InvalidInputError(tool.name, [{ path: name, message: 'must be a non-empty string' }]);
    own[name as (typeof CALL_ARGUMENTS)[number]] = value;
  }
  return { input, own };
}

type CallRequest = Omit<ExecuteRequest, 'connectorKey' | 'action' | 'connectionId' | 'input'>;

/** The first page from the cursor on (from the start without one), and the cursor of the next. */
async function readOnePage(
  host: ToolHost,
  tool: ActionTool,
  input: unknown,
  cursor: string | undefined,
  call: CallRequest,
) {
  // A stream of this call alone: the cursor's checkpoint is where it resumes, and nothing stays kept.
  const stream = `mcp/${randomUUID()}`;
  if (cursor !== undefined) await host.checkpoints.commit(stream, decodeCursor(cursor));
  try {
    await host.executor.execute({
      ...call,
      connectorKey: tool.connector.key,
      action: tool.action.key,
      connectionId: host.connectionId,
      input,
      stream,
      onPage: (page) => Promise.reject(new FirstPage(page)),
    });
    return { records: [], nextCursor: null };
  } catch (error) {
    if (!(error instanceof FirstPage)) throw error;
    const { page } = error;
    const version = tool.action.checkpointVersion ?? 1;
    return {
      records: page.records,
      nextCursor: page.checkpoint === undefined ? null : encodeCursor(checkpointToStore(page.checkpoint, version)),
    };
  } finally {
    await host.checkpoints.clear(stream);
  }
}

/** What the agent is told of a failure: the typed code and message, a 402's quota and amounts. */
function failure(error: unknown): ToolResult {
  if (!(error instanceof ConnectorError)) throw error;
  const structured: Record<string, unknown> = { code: error.code, message: error.message };
  if (error instanceof InvalidInputError) structured.fields = error.issues.map((issue) => issue.path);
  if (error instanceof QuotaExhaustedError)
    Object.assign(structured, {
      quota: error.quota,
      unit: error.unit,
      required: error.required,
      available: error.available,
    });
  return toolError(`${error.code}: ${error.message}`, structured);
}

/** The pending approval of a call the gate refused, asked for at the desk; a plain refusal without one. */
async function pendingApproval(
  host: ToolHost,
  tool: ActionTool,
  input: unknown,
  error: ApprovalRequiredError,
  caller: string,
): Promise<ToolResult> {
  if (!host.approvals) return failure(error);
  const pending = await host.approvals.request({
    digest: error.digest,
    shortDigest: error.shortDigest,
    connector: tool.connector.key,
    action: tool.action.key,
    tool: tool.name,
    environment: host.environment,
    // Bounded: an agent's input may be long, and a person reads this.
    summary: excerpt(
      `${tool.connector.name} ${tool.action.label} (${tool.action.key}) in ${host.environment}, input ${JSON.stringify(input)}`,
      1000,
    ),
    requestedBy: caller,
  });
  const ask = pending.url ? `open ${pending.url}` : `run plugboard approvals approve ${pending.id} --by NAME`;
  return toolError(
    `approval_required: ${tool.action.key} in ${host.environment} needs the approval of someone other than ${caller}: ${ask}, then call again with approvalId ${pending.id}`,
    { code: 'approval_required', approval: { ...pending, digest: error.digest, status: 'pending' } },
  );
}

export async function callTool(
  host: ToolHost,
  tool: ActionTool,
  args: Record<string, unknown>,
  context: CallContext,
): Promise<ToolResult> {
  let input: unknown = args;
  try {
    const split = splitArguments(tool, args);
    const own = split.input;
    input = own;
    const { cursor, idempotencyKey, approvalId } = split.own;
    const approval =
      approvalId !== undefined && host.approvals ? await host.approvals.decisionFor(approvalId) : undefined;
    const call: CallRequest = {
      environment: host.environment,
      ...(approval ? { approval } : {}),
      ...(context.signal ? { signal: context.signal } : {}),
      ...(context.onProgress ? { onProgress: context.onProgress } : {}),
    };
    if (tool.action.direction === 'source') return answer(await readOnePage(host, tool, own, cursor, call));
    const outcome = await host.executor.execute({
      ...call,
      connectorKey: tool.connector.key,
      action: tool.action.key,
      connectionId: host.connectionId,
      input: own,
      ...(idempotencyKey ? { idempotencyKey } : {}),
    });
    const result = outcome.direction === 'destination' ? outcome.result : undefined;
    const structured =
      typeof result === 'object' && result !== null && !Array.isArray(result)
        ? (result as Record<string, unknown>)
        : { result };
    return answer(structured);
  } catch (error) {
    if (
      error instanceof ApprovalRequiredError &&
      (!(error instanceof ApprovalRefusedError) || error.reason === 'missing')
    )
      return pendingApproval(host, tool, input, error, context.caller);
    return failure(error);
  }
}
