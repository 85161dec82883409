/**
 * Secret handling shared by logs, errors and recorded fixtures: rule 10's judgement of
 * secret-like keys (`secrets/keys.ts`, reading keys as words with look-alike letters folded),
 * and a redactor that finds secret values anywhere in a string, including their URL-encoded,
 * hex and base64 forms (`secrets/redactor.ts`, searching the forms of `secrets/forms.ts`).
 */

export { normaliseKey } from './secrets/look-alikes.js';
export { findSecretKeys, isFormatKey, isSecretKey } from './secrets/keys.js';
export { MIN_SECRET_LENGTH } from './secrets/forms.js';
export { REDACTED, Redactor } from './secrets/redactor.js';
