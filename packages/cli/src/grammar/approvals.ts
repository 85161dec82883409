import type { CommandSpec, OptionSpec } from './command-spec.js';

/** `plugboard approvals list|show|approve|reject`: the MCP server's approvals, decided by a person. */

const STATE: OptionSpec = {
  flags: '--state <dir>',
  description:
    'the state folder the MCP server keeps approvals in (default: $PLUGBOARD_STATE, else $XDG_STATE_HOME/plugboard, else ~/.local/state/plugboard)',
};
const POSTGRES: OptionSpec = {
  flags: '--postgres <url>',
  description: "the fleet's PostgreSQL instead of a state folder, postgres://USER:PASSWORD@HOST:PORT/DATABASE",
};
const JSON_OUTPUT: OptionSpec = {
  flags: '--json',
  description: 'print JSON lines (also when stdout is not a terminal)',
};
const ID = { name: '<id>', description: 'the approval id (apr_...), as the MCP tool result named it' };
const BY: OptionSpec = { flags: '--by <name>', description: 'who decides: never the person who asked', required: true };

const LIST: CommandSpec = {
  name: 'list',
  summary: 'list the approvals, newest first',
  options: [
    {
      flags: '--status <status>',
      description: 'only approvals in this state',
      choices: ['pending', 'approved', 'rejected', 'used'],
    },
    STATE,
    POSTGRES,
    JSON_OUTPUT,
  ],
  examples: ['plugboard approvals list --status pending --state ./state'],
  load: async () => (await import('../commands/approvals.js')).listCommand,
};

const SHOW: CommandSpec = {
  name: 'show',
  summary: 'show one approval: what will happen, its digest, who asked, its expiry and state',
  arguments: [ID],
  options: [STATE, POSTGRES, JSON_OUTPUT],
  examples: [
    'plugboard approvals show apr_3q2FzJ0x8Yb1LwQe7nTg9A --postgres postgres://plugboard@db.internal:5432/plugboard',
  ],
  load: async () => (await import('../commands/approvals.js')).showCommand,
};

/** `approve` and `reject`: the same decision with another word. */
function decision(name: 'approve' | 'reject'): CommandSpec {
  return {
    name,
    summary: `${name} a pending approval, as someone other than the person who asked`,
    description: `Refused (exit 3) when --by names the person who asked, however spelt; refused (exit 6) when the approval is not pending any more, has expired or is unknown.`,
    arguments: [ID],
    options: [BY, STATE, POSTGRES, JSON_OUTPUT],
    examples: [`plugboard approvals ${name} apr_3q2FzJ0x8Yb1LwQe7nTg9A --by bob@example.com --state ./state`],
    load: async () => (await import('../commands/approvals.js'))[`${name}Command`],
  };
}

export const APPROVALS: CommandSpec = {
  name: 'approvals',
  summary: "decide the MCP server's approvals",
  description:
    'An MCP tool call whose action needs approval waits for a person other than the caller to approve it; the call then runs once. These commands list, show and decide those approvals, wherever the server keeps them.',
  examples: [
    'plugboard approvals list --status pending --state ./state',
    'plugboard approvals approve apr_3q2FzJ0x8Yb1LwQe7nTg9A --by bob@example.com --state ./state',
  ],
  subcommands: [LIST, SHOW, decision('approve'), decision('reject')],
};
