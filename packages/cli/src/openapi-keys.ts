import type { Method } from './openapi-document.js';
import { UsageError } from './usage.js';

/**
 * The action key of an operation of an OpenAPI document. The operation's own name decides it:
 * its `operationId` cut into lower-case words, the first the verb and the rest the resource
 * (`listProjects` → `projects.list`, `sendMessage` → `message.send`, `getProject` →
 * `project.get`: the words as written, nothing made plural or singular), a one-word id taking its
 * resource from the path (`search` on /search → `search.search`). An operation without an id is
 * named from its path and method (GET /items → `items.list` when it answers a list, GET
 * /items/{id} → `items.get`, POST /items → `items.create`). The author may name any operation's
 * key instead (`--operations sendMessage=messages.send`).
 */

/** The form of an action key, as defineConnector checks it: `resource.verb` in lower snake case. */
export const ACTION_KEY = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

/** A part of a key: lower snake case, starting with a letter. */
function part(parts: string[]): string {
  const joined = parts.join('_') || 'operation';
  return /^[a-z]/.test(joined) ? joined : `op_${joined}`;
}

/** The last segment of a path that is not a parameter: what it is about. */
function resourceOf(path: string): string[] {
  return words(
    path
      .split('/')
      .filter((segment) => segment && !segment.startsWith('{'))
      .at(-1) ?? '',
  );
}

const VERBS: Partial<Record<Method, string>> = { post: 'create', put: 'update', patch: 'update', delete: 'delete' };

/** The key an operation gets when the author names none. */
export function derivedKey(operation: {
  operationId: string | undefined;
  path: string;
  method: Method;
  list: boolean;
}): string {
  const { operationId, path, method, list } = operation;
  const named = words(operationId ?? '');
  if (named.length > 1) return `${part(named.slice(1))}.${part(named.slice(0, 1))}`;
  const resource = part(resourceOf(path));
  if (named.length === 1) return `${resource}.${part(named)}`;
  const last = path.split('/').filter(Boolean).at(-1);
  const verb = method === 'get' ? (list && !last?.startsWith('{') ? 'list' : 'get') : (VERBS[method] ?? method);
  return `${resource}.${verb}`;
}

/** Each operation's key: the author's where given, else derived; two operations never share one. */
export function assignKeys<T extends { name: string; key: string | undefined; derived: string }>(
  operations: readonly T[],
): Array<T & { key: string }> {
  const bad = operations.filter(({ key }) => key !== undefined && !ACTION_KEY.test(key));
  if (bad.length > 0)
    throw new UsageError(
      `--operations: ${bad.map(({ name, key }) => `${name}=${key}`).join(', ')}: a key looks like resource.verb in lower snake case (items.list)`,
    );
  const owners = new Map<string, string>();
  return operations.map((operation) => {
    const key = operation.key ?? operation.derived;
    const owner = owners.get(key);
    if (owner !== undefined)
      throw new UsageError(
        `--operations: ${owner} and ${operation.name} would both be the action ${key}; name one's key, e.g. ${operation.name}=${key.split('.')[0]}.${part(words(operation.name))}`,
      );
    owners.set(key, operation.name);
    return { ...operation, key };
  });
}
