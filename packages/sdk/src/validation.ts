import type { z } from 'zod';
import type { InputIssue } from './errors.js';
import { excerpt } from './excerpt.js';

/** Issues an error lists; the rest are counted. */
export const MAX_ISSUES = 20;

/**
 * Issues as an error lists them: each path and message cut to a short excerpt (a message may
 * quote the value it refuses, a path a key), at most `MAX_ISSUES` of them, the rest counted
 * in one last issue.
 */
export function boundedIssues(issues: readonly InputIssue[], total: number = issues.length): InputIssue[] {
  const listed = issues
    .slice(0, MAX_ISSUES)
    .map((issue) => ({ path: excerpt(issue.path), message: excerpt(issue.message) }));
  if (total > MAX_ISSUES) listed.push({ path: '...', message: `${total - MAX_ISSUES} more issues not listed` });
  return listed;
}

/** zod issues as dotted field paths with their problems, e.g. `applicant.date_of_birth: Required`; bounded as `boundedIssues` says. */
export function zodIssues(error: z.ZodError, prefix?: string): InputIssue[] {
  const issues = error.issues.slice(0, MAX_ISSUES).map((issue) => ({
    path: [...(prefix ? [prefix] : []), ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  return boundedIssues(issues, error.issues.length);
}
