// CPU time per kind of process under this one (Linux /proc): what a benchmark's page costs in
// the worker, the plugin, the provider, PostgreSQL, Redis and the benchmark itself. Not a
// benchmark itself.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on Linux whatever the kernel's own HZ

function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // After the name: state, ppid, ... utime is field 14 of stat, stime 15 (1-based).
    return { pid, comm, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Every live process under `rootPid`, itself included. */
function tree(rootPid) {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => stat(Number(name)))
    .filter(Boolean);
  const children = new Map();
  for (const proc of all) children.set(proc.ppid, [...(children.get(proc.ppid) ?? []), proc]);
  const found = [];
  const queue = all.filter((proc) => proc.pid === rootPid);
  while (queue.length > 0) {
    const proc = queue.shift();
    found.push(proc);
    queue.push(...(children.get(proc.pid) ?? []));
  }
  return found;
}

/**
 * CPU seconds so far of each kind of process under `rootPid`: `roles(proc)` names a process's
 * kind (`proc.pid`, `proc.comm`, `proc.cmdline`), or undefined to leave it out.
 */
export function cpuByRole(rootPid, roles) {
  const seconds = new Map();
  for (const proc of tree(rootPid)) {
    const role = roles({ ...proc, cmdline: cmdline(proc.pid) });
    if (role) seconds.set(role, (seconds.get(role) ?? 0) + proc.ticks / TICKS_PER_SECOND);
  }
  return seconds;
}

/** Whether a live process whose parent is `pid` has `text` in its command line. */
export function hasChild(pid, text) {
  return tree(pid).some((proc) => proc.ppid === pid && cmdline(proc.pid).includes(text));
}

/** What each kind spent between two `cpuByRole` readings (a process that ended in between is left out). */
export function spent(before, after) {
  return new Map([...after].map(([role, value]) => [role, value - (before.get(role) ?? 0)]));
}
