import type { Method } from './openapi-document.js';
import { UsageError } from './usage.js';

/**
 * The action key of an operation of an OpenAPI document. The operation's own name decides it:
 * its `operationId` cut into lower-case words, the first the verb and the rest the resource
 * (`listProjects` → `projects.list`, `sendMessage` → `message.send`, `getProject` →
 * `project.get`: the words as written, nothing made plural or singular), a one-word id taking its
 * resource from the path (`search` on /search → `search.search`), an id naming its resource
 * before a slash keeping it so (`repos/list-for-org` → `repos.list_for_org`). An operation without an id is
 * keyed from its path and method (GET /items → `items.list` when it answers a list, GET
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

/** The segments of a path that are not parameters: what it is about, the last most closely. */
function resourceOf(path: string): string[] {
  return path
    .split('/')
    .filter((segment) => segment && !segment.startsWith('{'))
    .map((segment) => part(words(segment)));
}

const VERBS: Partial<Record<Method, string>> = { post: 'create', put: 'update', patch: 'update', delete: 'delete' };

/**
 * The key an operation gets when the author names none, and the longer one it gets when another
 * operation would have the same: the resource from the whole path (`/blocks/latest` and
 * `/epochs/latest` are `blocks_latest.get` and `epochs_latest.get`, not both `latest.get`).
 */
export function derivedKey(operation: {
  operationId: string | undefined;
  path: string;
  method: Method;
  list: boolean;
}): {
  key: string;
  whole: string;
} {
  const { operationId, path, method, list } = operation;
  // `repos/list-for-org` names its resource before the slash and its verb phrase after (GitHub's ids).
  const slash = operationId?.lastIndexOf('/') ?? -1;
  if (operationId && slash > 0 && slash < operationId.length - 1) {
    const key = `${part(words(operationId.slice(0, slash)))}.${part(words(operationId.slice(slash + 1)))}`;
    return { key, whole: key };
  }
  const named = words(operationId ?? '');
  if (named.length > 1) {
    const key = `${part(named.slice(1))}.${part(named.slice(0, 1))}`;
    return { key, whole: key };
  }
  const last = path.split('/').filter(Boolean).at(-1);
  const verb =
    named.length === 1
      ? part(named)
      : method === 'get'
        ? list && !last?.startsWith('{')
          ? 'list'
          : 'get'
        : (VERBS[method] ?? method);
  const resource = resourceOf(path);
  return { key: `${resource.at(-1) ?? 'operation'}.${verb}`, whole: `${part(resource)}.${verb}` };
}

/** Each operation's key: the author's where given, else derived; two operations never share one. */
export function assignKeys<
  T extends { name: string; key: string | undefined; derived: { key: string; whole: string } },
>(operations: readonly T[]): Array<T & { key: string }> {
  const bad = operations.filter(({ key }) => key !== undefined && !ACTION_KEY.test(key));
  if (bad.length > 0)
    throw new UsageError(
      `--operations: ${bad.map(({ name, key }) => `${name}=${key}`).join(', ')}: a key looks like resource.verb in lower snake case (items.list)`,
    );
  const shortKeys = operations.filter(({ key }) => key === undefined).map(({ derived }) => derived.key);
  const owners = new Map<string, string>();
  return operations.map((operation) => {
    const { derived } = operation;
    const shared = shortKeys.indexOf(derived.key) !== shortKeys.lastIndexOf(derived.key);
    const key = operation.key ?? (shared ? derived.whole : derived.key);
    const owner = owners.get(key);
    if (owner !== undefined)
      throw new UsageError(
        `--operations: ${owner} and ${operation.name} would both be the action ${key}; name one's key, e.g. ${operation.name}=${key.split('.')[0]}.${part(words(operation.name))}`,
      );
    owners.set(key, operation.name);
    return { ...operation, key };
  });
}
