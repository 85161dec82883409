import * as nodeModule from 'node:module';
import { sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * A connector package depends on `@plugboard/sdk` as a peer: the host decides the SDK
 * instance. A plugin folder that npm installed into usually holds its own copy of the SDK
 * (npm installs peers), and two copies mean two sets of error classes, so an error made by
 * the connector's copy would not be recognised by the host's pipeline. While a plugin loads
 * and runs, imports of `@plugboard/sdk` from any module under a registered plugin root
 * resolve as if the runtime had imported it: to the host's SDK.
 *
 * Uses `module.registerHooks` (Node 22.15 and later, synchronous, in the same thread).
 */

const roots = new Set<string>();
let installed = false;
let available: boolean | undefined;

/** The module resolution is anchored here: the runtime's own module, next to the host's SDK. */
const anchor = import.meta.url;

function isSdkSpecifier(specifier: string): boolean {
  return specifier === '@plugboard/sdk' || specifier.startsWith('@plugboard/sdk/');
}

function underRoot(parentURL: string | undefined): boolean {
  if (!parentURL?.startsWith('file:')) return false;
  for (const root of roots) if (parentURL.startsWith(root)) return true;
  return false;
}

/** True when this Node can redirect plugin imports of the SDK to the host's. */
export function canShareHostSdk(): boolean {
  available ??= typeof (nodeModule as { registerHooks?: unknown }).registerHooks === 'function';
  return available;
}

/** Makes imports of `@plugboard/sdk` from modules under `dir` resolve to the host's SDK. */
export function shareHostSdk(dir: string): boolean {
  if (!canShareHostSdk()) return false;
  const root = pathToFileURL(dir.endsWith(sep) ? dir : `${dir}${sep}`).href;
  roots.add(root);
  if (!installed) {
    installed = true;
    nodeModule.registerHooks({
      resolve(specifier, context, nextResolve) {
        if (isSdkSpecifier(specifier) && underRoot(context.parentURL)) {
          return nextResolve(specifier, { ...context, parentURL: anchor });
        }
        return nextResolve(specifier, context);
      },
    });
  }
  return true;
}
