import { hash } from 'node:crypto';

/**
 * The MCP tool name of a connector's action: `<connector>_<action>` with every character outside
 * letters, digits, `_` and `-` written as `_` (`descript` and `projects.list` give
 * `descript_projects_list`), within the 64 characters clients take. A longer name keeps its first
 * 55 characters and ends in `_` and 8 hex characters of the whole name's SHA-256, so it stays
 * stable and two long names still differ.
 */

export const MAX_TOOL_NAME = 64;
const DIGEST_CHARS = 8;

export function toolName(connector: string, action: string): string {
  const name = `${connector}_${action}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (name.length <= MAX_TOOL_NAME) return name;
  const digest = hash('sha256', name, 'hex').slice(0, DIGEST_CHARS);
  return `${name.slice(0, MAX_TOOL_NAME - DIGEST_CHARS - 1)}_${digest}`;
}
