import type { CommandSpec, OptionSpec } from './command-spec.js';

const STATE: OptionSpec = {
  flags: '--state <dir>',
  description:
    'the state folder whose approvals plugboard mcp keeps (default: $PLUGBOARD_STATE, else $XDG_STATE_HOME/plugboard, else ~/.local/state/plugboard)',
};
const ID = { name: '<id>', description: 'the approval id, apr_...' };
const BY: OptionSpec = { flags: '--by <name>', description: 'who decides: never the one who asked', required: true };

const LIST: CommandSpec = {
  name: 'list',
  summary: 'print the approvals of tool calls as JSON lines, newest first',
  options: [
    {
      flags: '--status <status>',
      description: 'only those',
      choices: ['pending', 'approved', 'rejected', 'used', 'expired'],
    },
    STATE,
  ],
  examples: ['plugboard approvals list --status pending'],
  load: async () => (await import('../commands/approvals.js')).listCommand,
};

const SHOW: CommandSpec = {
  name: 'show',
  summary: 'print one approval: the call, its digest, who asked, its status',
  arguments: [ID],
  options: [STATE],
  examples: ['plugboard approvals show apr_0123456789abcdef0123456789abcdef'],
  load: async () => (await import('../commands/approvals.js')).showCommand,
};

const decide = (name: 'approve' | 'reject'): CommandSpec => ({
  name,
  summary: `${name} a pending tool call, as someone other than the one who asked`,
  arguments: [ID],
  options: [BY, STATE],
  examples: [`plugboard approvals ${name} apr_0123456789abcdef0123456789abcdef --by bob@example.com`],
  load: async () => (await import('../commands/approvals.js'))[name === 'approve' ? 'approveCommand' : 'rejectCommand'],
});

export const APPROVALS: CommandSpec = {
  name: 'approvals',
  summary: 'decide the tool calls an agent asked plugboard mcp to run',
  description:
    'A tool call whose action needs an approval does not run: plugboard mcp keeps a pending approval of exactly that call (its digest) and tells the agent its id. A person other than the caller approves or rejects it here; the agent then calls again with the id, and the call runs once.',
  examples: [
    'plugboard approvals list --status pending',
    'plugboard approvals approve apr_0123456789abcdef0123456789abcdef --by bob@example.com',
  ],
  subcommands: [LIST, SHOW, decide('approve'), decide('reject')],
};
