import { compositionShortId } from './ids.js';
import type { Composition, ProjectDetail } from './model.js';
import { notFound } from '../errors.js';

/** Compositions are named by UUID, by the 5-character short id, or by a project URL ending in it. */
function findComposition(project: ProjectDetail, reference: string): Composition | undefined {
  const id = reference.includes('/') ? (reference.split('/').filter(Boolean).at(-1) ?? '') : reference;
  const lower = id.toLowerCase();
  return project.compositions.find(
    (composition) => composition.id === lower || compositionShortId(composition.id) === lower,
  );
}

export function requireComposition(project: ProjectDetail, reference: string): Composition {
  const composition = findComposition(project, reference);
  if (!composition) throw notFound(`No composition matching '${reference}' found in project ${project.id}`);
  return composition;
}
