import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The provider's OpenAPI document as a Plugboard checkout's tests find it: not in
 * the repository, but at ../shared/reference/ beside it, where CI always has it.
 */
export interface OpenApiReference {
  path: string;
  present: boolean;
  /** On CI its absence is a failure, not a reason to skip. */
  required: boolean;
  /** What a test that needs the document reports when it is missing: which file, and where it was looked for. */
  missing: string;
}

function repositoryRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no Plugboard checkout above ${from}`);
  }
}

export function openApiReference(): OpenApiReference {
  const path = resolve(
    repositoryRoot(dirname(fileURLToPath(import.meta.url))),
    '../shared/reference/descript-openapi-1.2.yaml',
  );
  return {
    path,
    present: existsSync(path),
    required: !['', '0', 'false'].includes(process.env['CI'] ?? ''),
    missing: `the provider's OpenAPI document descript-openapi-1.2.yaml is missing: looked for it at ${path} (../shared/reference/ beside the checkout, where CI always has it)`,
  };
}
