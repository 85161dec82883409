import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ToolResult } from './call.js';

/**
 * URL-mode elicitation of an approval page (protocol revision 2026-07-28): to a client that
 * declares it takes URL elicitation, a call that waits for an approval answers `input_required`
 * with the page's URL, which the client shows its person (who passes it to someone else: the
 * requester cannot decide). The approval's id rides as the request state; the client's retry
 * brings it back as the call's `approvalId`, checked by the one gate like any agent's (it is the
 * client's word, trusted no further). Any other client gets the tool error with the URL in text.
 */

const KEY = 'approval';
/** An approval id as the gate takes it: the state is the client's, bounded before it is used. */
const APPROVAL_ID = /^[\w-]{1,200}$/;

function takesUrlElicitation(context: ServerContext): boolean {
  const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return capabilities?.elicitation?.url !== undefined;
}

/** The approval a retried call names in its request state, or a refusal when its person declined. */
export function elicitedApproval(context: ServerContext): { approvalId?: string; declined?: ToolResult } {
  const state = context.mcpReq.requestState<unknown>();
  if (typeof state !== 'string' || !APPROVAL_ID.test(state)) return {};
  const answered = inputResponse(context.mcpReq.inputResponses, KEY);
  if (answered.kind === 'elicit' && answered.action !== 'accept') {
    const text = `approval_declined: the approval page of ${state} was not opened; call again to ask anew`;
    return {
      declined: { content: [{ type: 'text', text }], structuredContent: { code: 'approval_declined' }, isError: true },
    };
  }
  return { approvalId: state };
}

/** The pending approval of `result` asked of the client as a URL elicitation, when it takes one. */
export function elicitApproval(result: ToolResult, context: ServerContext): ToolResult | InputRequiredResult {
  const structured = result.structuredContent;
  const approval = structured?.approval as { id?: unknown; url?: unknown } | undefined;
  if (structured?.code !== 'approval_required' || typeof approval?.url !== 'string' || typeof approval.id !== 'string')
    return result;
  if (!takesUrlElicitation(context)) return result;
  return inputRequired({
    inputRequests: {
      [KEY]: inputRequired.elicitUrl({ message: result.content[0]?.text ?? 'approval required', url: approval.url }),
    },
    requestState: approval.id,
  });
}
