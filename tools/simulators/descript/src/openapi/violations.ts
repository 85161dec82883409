import type { ErrorObject } from 'ajv';

/** Turns Ajv's errors into one sentence naming the parameter or field at fault. */

export function describeViolation(errors: readonly ErrorObject[], subject: string, describeField = true): string {
  const best = mostSpecific(errors);
  if (!best) return `${subject} is invalid`;
  const field = describeField ? fieldPath(best.instancePath) : '';
  return `${field ? `${subject} field '${field}'` : subject} ${message(best)}`;
}

/** The deepest concrete error: with oneOf, the branch that got furthest says most about the mistake. */
function mostSpecific(errors: readonly ErrorObject[]): ErrorObject | undefined {
  const concrete = errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf');
  const candidates = concrete.length > 0 ? concrete : errors;
  return candidates.reduce<ErrorObject | undefined>(
    (best, e) => (!best || depth(e) > depth(best) ? e : best),
    undefined,
  );
}

function depth(error: ErrorObject): number {
  return error.instancePath === '' ? 0 : error.instancePath.split('/').length;
}

function message(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'enum':
      return `must be one of ${(params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'additionalProperties':
      return `must not have the property '${String(params['additionalProperty'])}'`;
    case 'required':
      return `must have the property '${String(params['missingProperty'])}'`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** `/add_media/demo.mp4/url` as `add_media["demo.mp4"].url`. */
function fieldPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment, i) =>
      /^\d+$/.test(segment)
        ? `[${segment}]`
        : /^[A-Za-z_$][\w$]*$/.test(segment)
          ? `${i === 0 ? '' : '.'}${segment}`
          : `[${JSON.stringify(segment)}]`,
    )
    .join('');
}
