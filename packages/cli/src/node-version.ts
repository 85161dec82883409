/** The oldest Node the CLI runs on: what its dependencies need (nock 15, behind `record`, needs 22.20). */
export const MIN_NODE = '22.20.0';

/** True when `version` (e.g. `20.20.2`) is older than `MIN_NODE`. */
export function nodeTooOld(version: string = process.versions.node): boolean {
  const have = version.split('.').map(Number);
  const need = MIN_NODE.split('.').map(Number);
  for (let index = 0; index < need.length; index += 1) {
    if ((have[index] ?? 0) !== need[index]) return (have[index] ?? 0) < need[index]!;
  }
  return false;
}
