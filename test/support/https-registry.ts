import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A small npm registry over HTTPS on 127.0.0.1 and a free port, for the wrapper's tests: the
 * packument and the tarball of each package it is given, a 404 for anything else. Its
 * certificate is signed by a certificate authority made for it with openssl, which nothing
 * trusts unless a test names `caFile` (npm's `cafile`). Every request's path is kept.
 */

const run = promisify(execFile);

/** A package of one version: its files (path below the package folder, text, mode) and `bin`. */
export interface RegistryPackage {
  name: string;
  version: string;
  bin?: Record<string, string>;
  files: Record<string, { text: string; mode?: number }>;
}

export interface HttpsRegistry {
  /** `https://127.0.0.1:<port>/`. */
  url: string;
  /** The certificate authority's certificate (PEM) the registry's certificate chains to. */
  caFile: string;
  /** The path of every request, in order. */
  asked: string[];
  stop(): Promise<void>;
}

/** A CA and a certificate for 127.0.0.1 signed by it, valid for a day, in `dir`. */
async function certificates(dir: string): Promise<{ key: string; chain: string; caFile: string }> {
  const at = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=Plugboard test registry CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  ]);
  await run('openssl', ['req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=127.0.0.1']);
  await writeFile(at('server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.pem'),
    '-days',
    '1',
    '-extfile',
    at('server.ext'),
  ]);
  const [key, leaf, ca] = await Promise.all(
    ['server.key', 'server.pem', 'ca.pem'].map((name) => readFile(at(name), 'utf8')),
  );
  // The chain ends with the CA, as a company's proxy or mirror sends it.
  return { key: key!, chain: `${leaf}${ca}`, caFile: at('ca.pem') };
}

/** The package's package.json, which its packument's version repeats. */
function manifestOf(pkg: RegistryPackage): Record<string, unknown> {
  return { name: pkg.name, version: pkg.version, ...(pkg.bin ? { bin: pkg.bin } : {}) };
}

/** The package's tarball, as `npm pack` lays it out (everything under `package/`). */
async function tarball(dir: string, pkg: RegistryPackage): Promise<Buffer> {
  const root = join(dir, 'packages', pkg.name);
  const files: RegistryPackage['files'] = { ...pkg.files, 'package.json': { text: JSON.stringify(manifestOf(pkg)) } };
  for (const [path, { text, mode }] of Object.entries(files)) {
    const file = join(root, 'package', path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text, { mode: mode ?? 0o644 });
  }
  const out = join(dir, `${pkg.name}-${pkg.version}.tgz`);
  await run('tar', ['-czf', out, '-C', root, 'package']);
  return readFile(out);
}

/** Starts the registry with `packages`; `dir` holds its certificates and tarballs. */
export async function startHttpsRegistry(dir: string, packages: RegistryPackage[]): Promise<HttpsRegistry> {
  await mkdir(dir, { recursive: true });
  const { key, chain, caFile } = await certificates(dir);
  const served = new Map<string, { body: Buffer; type: string }>();
  const asked: string[] = [];
  const server = createServer({ key, cert: chain }, (request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'https://127.0.0.1').pathname);
    asked.push(path);
    const found = served.get(path);
    if (!found) return response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    response.writeHead(200, { 'content-type': found.type, 'content-length': found.body.length }).end(found.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  for (const pkg of packages) {
    const bytes = await tarball(dir, pkg);
    const file = `/${pkg.name}/-/${pkg.name}-${pkg.version}.tgz`;
    served.set(file, { body: bytes, type: 'application/octet-stream' });
    const dist = {
      tarball: new URL(file.slice(1), url).href,
      shasum: createHash('sha1').update(bytes).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    };
    const version = { ...manifestOf(pkg), dist };
    const packument = { name: pkg.name, 'dist-tags': { latest: pkg.version }, versions: { [pkg.version]: version } };
    served.set(`/${pkg.name}`, { body: Buffer.from(JSON.stringify(packument)), type: 'application/json' });
  }
  return {
    url,
    caFile,
    asked,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
