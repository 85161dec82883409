import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanEnv, ROOT } from './packages.js';

/**
 * A machine whose Node is too old for `./pbw`, in a temporary folder, and a fresh clone of the
 * wrapper to run on it.
 *
 * The machine's Node is installed in `prefix`: `bin/node` says it is 20.0.0 to the wrapper's
 * version check and runs `bin/node-real`, a copy of this Node, for everything else. npm takes
 * the folder its Node runs from as its prefix, so the machine's npm (run by that Node) reads
 * `etc/npmrc` there as its global configuration, as on a machine whose Node is installed there,
 * and another Node running npm reads another. The user's configuration (`home/.npmrc`) sends
 * anything not for 127.0.0.1 to a closed port.
 */

export interface OldMachine {
  prefix: string;
  /** The machine's global npmrc, `<prefix>/etc/npmrc`: write it before running the wrapper. */
  globalNpmrc: string;
  home: string;
  /** The environment the wrapper runs in: the machine's Node first on PATH, no npm or pnpm settings. */
  env: NodeJS.ProcessEnv;
}

/** The machine, in `dir`; `userNpmrc` goes into the user's configuration after the proxy lines. */
export async function oldNodeMachine(dir: string, userNpmrc = ''): Promise<OldMachine> {
  const prefix = join(dir, 'machine');
  const home = join(dir, 'home');
  await mkdir(join(prefix, 'bin'), { recursive: true });
  await mkdir(join(prefix, 'etc'), { recursive: true });
  await mkdir(home, { recursive: true });
  const real = join(prefix, 'bin', 'node-real');
  await copyFile(process.execPath, real);
  await writeFile(
    join(prefix, 'bin', 'node'),
    `#!/bin/sh\nif [ "$1" = -p ] && [ "$2" = process.versions.node ]; then echo 20.0.0; exit 0; fi\nexec ${JSON.stringify(real)} "$@"\n`,
    { mode: 0o755 },
  );
  await writeFile(
    join(home, '.npmrc'),
    `proxy=http://127.0.0.1:9/\nhttps-proxy=http://127.0.0.1:9/\nnoproxy=127.0.0.1\nfetch-retries=0\n${userNpmrc}`,
  );
  // Only what the machine's files say: no CA, prefix or setting of this process's reaches npm.
  const {
    NODE_EXTRA_CA_CERTS: _ca,
    NODE_OPTIONS: _options,
    ...env
  } = cleanEnv({
    HOME: home,
    PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    npm_config_cache: join(dir, 'npm-cache'),
  });
  return { prefix, globalNpmrc: join(prefix, 'etc', 'npmrc'), home, env };
}

/** A fresh clone in `dir`: the wrapper, a package.json pinning `pnpm@<pnpmVersion>` and an empty lockfile. */
export async function wrapperClone(dir: string, pnpmVersion: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await copyFile(join(ROOT, 'pbw'), join(dir, 'pbw'));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ packageManager: `pnpm@${pnpmVersion}` }));
  await writeFile(join(dir, 'pnpm-lock.yaml'), '');
  return join(dir, 'pbw');
}
