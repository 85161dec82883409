export const ROOT: string;
export interface WorkspacePackageInfo {
  name: string;
  folder: string;
  buildable: boolean;
  dependencies: string[];
}
export function workspacePackages(root?: string): Map<string, WorkspacePackageInfo>;
export function sourcesChangedAt(dir: string, root?: string): number;
export function isStale(dir: string, root?: string): boolean;
export function buildOrder(packages: Map<string, WorkspacePackageInfo>, targets: string[]): WorkspacePackageInfo[];
export function freshBuild(targets: string[], root?: string, say?: (line: string) => void): Promise<string[]>;
