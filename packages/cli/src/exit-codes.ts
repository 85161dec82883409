/**
 * The exit codes of every `plugboard` command, in one table: the help prints it, and
 * `exitCodeOf` (failure.ts) maps a failure onto it. A script tells from the code alone whether
 * to fix its input (2), ask for an approval (3), look at what the provider said (4), wait for a
 * quota (5), have a person look before anything runs again (6) or retry (1): a state that needs
 * a person never exits 1, which scripts retry.
 */
export const EXIT_CODES = [
  { code: 0, meaning: 'done' },
  {
    code: 1,
    meaning:
      'anything else: a network failure, a timeout, the provider down (check: a connection that failed only because the provider could not be reached), a breaking change found by catalogue diff',
  },
  {
    code: 2,
    meaning:
      'refused before any request: usage, invalid input or connection, unknown connector or action, a refused address, a checkpoint kept by a newer connector version; check: the connector has no check (not_checked)',
  },
  {
    code: 3,
    meaning:
      'approval required: the action needs a decision by someone else on this digest (--approval); approvals approve or reject by the person who asked',
  },
  {
    code: 4,
    meaning:
      'the provider refused the request (a 4xx answer: authentication, permission, not found, conflict, rejected), the credential expired, or a sign-in was denied; check: the connection did not pass (expired, credentials_changed, failed: its fixHint says what to do)',
  },
  { code: 5, meaning: 'quota exhausted (402): the provider says the account has not enough credits or minutes' },
  {
    code: 6,
    meaning:
      'a person must look; nothing was sent: an idempotency key left running or uncertain (plugboard idempotency show, then settle), a key nothing is kept under, a settle the key does not allow, a PostgreSQL schema older (plugboard db migrate) or newer than this Plugboard, a token set sealed with another key, a Redis whose maxmemory-policy is not noeviction (plugboard worker), an MCP approval unknown, not pending, expired or used already (plugboard approvals show)',
  },
] as const;

export type ExitCode = (typeof EXIT_CODES)[number]['code'];

/** Whether a command's own result is a code of the table (a tool a command ran may end with any number). */
export function isExitCode(code: unknown): code is ExitCode {
  return EXIT_CODES.some((entry) => entry.code === code);
}

export function exitCodesHelp(): string {
  return `Exit codes:\n${EXIT_CODES.map(({ code, meaning }) => `  ${code}  ${meaning}`).join('\n')}\n`;
}
