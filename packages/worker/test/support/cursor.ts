/** The newest `updated_at` of the drive and the ids at exactly that instant: where a full read's checkpoint ends. */
export function lastCursor(projects: Map<string, Record<string, unknown>>) {
  const newest = [...projects.values()]
    .map((project) => String(project.updated_at))
    .sort()
    .at(-1)!;
  const ids = [...projects.values()].filter((project) => project.updated_at === newest).map((project) => project.id);
  return { updated_after: newest, seen_ids: ids };
}
