import { type FSWatcher, watch } from 'node:fs';
import { resolve } from 'node:path';

/**
 * How processes waiting for a lock file learn that it changed (its owner removed it, another
 * process took it): one `fs.watch` per lock folder in the process, opened when its first waiter
 * listens and closed when its last one stops. Some file systems report no changes, or miss
 * some: the waiters' fallback look covers them (lease.ts).
 */
interface FolderWatch {
  watcher: FSWatcher | undefined;
  /** By lock file name. */
  listeners: Map<string, Set<() => void>>;
}

const folders = new Map<string, FolderWatch>();

/** Calls `notify` on every change to `file` in `folder` from now on; gives what stops it. */
export function watchLock(folder: string, file: string, notify: () => void): () => void {
  const path = resolve(folder);
  let watched = folders.get(path);
  if (!watched) {
    watched = { watcher: undefined, listeners: new Map() };
    watched.watcher = open(path, watched);
    folders.set(path, watched);
  }
  const { listeners } = watched;
  let named = listeners.get(file);
  if (!named) listeners.set(file, (named = new Set()));
  named.add(notify);
  return () => {
    named.delete(notify);
    if (named.size === 0 && listeners.get(file) === named) listeners.delete(file);
    if (listeners.size > 0 || folders.get(path) !== watched) return;
    folders.delete(path);
    watched.watcher?.close();
  };
}

/** The folder's watcher, or none where it cannot be watched (then only the fallback look). */
function open(path: string, watched: FolderWatch): FSWatcher | undefined {
  const changed = (_event: string, name: string | Buffer | null) => {
    // A change without a name may be any lock's.
    const named = name === null ? [...watched.listeners.values()] : [watched.listeners.get(String(name))];
    for (const listeners of named) for (const notify of listeners ?? []) notify();
  };
  try {
    const watcher = watch(path, { persistent: false }, changed);
    watcher.on('error', () => {
      watcher.close();
      watched.watcher = undefined;
    });
    return watcher;
  } catch {
    return undefined;
  }
}
