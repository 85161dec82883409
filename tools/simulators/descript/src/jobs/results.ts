/** The `result` objects of stopped jobs, in the provider's shapes. */

export const URL_FAILURE = 'URL is not accessible or does not support Range requests';

export interface ImportedItem {
  path: string;
  ok: boolean;
  /** Seconds of media, for successful audio, video and sequences. */
  seconds?: number;
  error?: string;
  /** Sequences only arrange media already counted, so they use no media seconds of their own. */
  billable: boolean;
}

/** success when every item imported, partial when some did, error when none did. */
export function importResult(
  items: readonly ImportedItem[],
  createdCompositions: ReadonlyArray<{ id: string; name: string }>,
): Record<string, unknown> {
  if (items.length > 0 && items.every((item) => !item.ok)) {
    return { status: 'error', error_message: 'Failed to import media files', error_code: 'import_failed' };
  }
  const mediaStatus: Record<string, unknown> = {};
  for (const item of items) {
    if (item.ok) {
      mediaStatus[item.path] = {
        status: 'success',
        ...(item.seconds !== undefined ? { duration_seconds: item.seconds } : {}),
      };
    } else {
      mediaStatus[item.path] = { status: 'failed', error_message: item.error ?? URL_FAILURE };
    }
  }
  const seconds = items.reduce((sum, item) => sum + (item.ok && item.billable ? (item.seconds ?? 0) : 0), 0);
  return {
    status: items.some((item) => !item.ok) ? 'partial' : 'success',
    media_status: mediaStatus,
    media_seconds_used: Math.round(seconds),
    ...(createdCompositions.length > 0
      ? { created_compositions: createdCompositions.map(({ id, name }) => ({ id, name })) }
      : {}),
  };
}

export interface AgentOutcome {
  ok: boolean;
  prompt: string;
  projectChanged: boolean;
  creditsUsed: number;
  resolvedModel: string;
  conversationId: string;
}

export function agentResult(outcome: AgentOutcome): Record<string, unknown> {
  if (!outcome.ok) {
    return {
      status: 'error',
      error_message: 'AI agent failed to process the request',
      error_code: 'agent_execution_failed',
      resolved_model: outcome.resolvedModel,
      conversation_id: outcome.conversationId,
    };
  }
  return {
    status: 'success',
    agent_response: outcome.projectChanged
      ? `Done. I worked through your request ("${outcome.prompt}") and updated the project.`
      : `I looked into your question ("${outcome.prompt}"); nothing in the project needed to change.`,
    project_changed: outcome.projectChanged,
    media_seconds_used: 0,
    ai_credits_used: outcome.creditsUsed,
    resolved_model: outcome.resolvedModel,
    conversation_id: outcome.conversationId,
  };
}
