import type { z } from 'zod';
import type { InputIssue } from './errors.js';

/** zod issues as dotted field paths with their problems, e.g. `applicant.date_of_birth: Required`. */
export function zodIssues(error: z.ZodError, prefix?: string): InputIssue[] {
  return error.issues.map((issue) => ({
    path: [...(prefix ? [prefix] : []), ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}
