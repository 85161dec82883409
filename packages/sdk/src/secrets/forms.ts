/**
 * The forms a secret takes on the wire, which the redactor searches for: as is, URL-encoded,
 * hex-encoded in lower or upper case, and inside base64 or base64url text.
 */

/** Secrets shorter than this are not searched by value: they would match ordinary text. */
export const MIN_SECRET_LENGTH = 6;

/**
 * The parts of any base64 text that carry the secret: a secret inside a larger
 * encoded value (Basic auth, a token envelope) encodes differently at each of
 * the three byte offsets, so each offset gives its own stable core.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const start = offset === 0 ? 0 : 4;
    const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 4;
    return encoded.slice(start, end);
  });
}

/** Every form a secret takes on the wire: as is, URL-encoded and hex-encoded in lower or upper case (`plain`), and inside base64 or base64url text (`encoded`). */
export interface SecretForms {
  plain: readonly string[];
  encoded: readonly string[];
}

/** Forms of recent secrets: a process runs many actions with the same credential. */
const formsCache = new Map<string, SecretForms>();
const FORMS_CACHED = 256;

/** The forms of a secret, those shorter than `MIN_SECRET_LENGTH` left out (kept for the latest few secrets). */
export function formsOf(secret: string): SecretForms {
  let forms = formsCache.get(secret);
  if (forms) return forms;
  const long = (list: Iterable<string>) => [...new Set(list)].filter((form) => form.length >= MIN_SECRET_LENGTH);
  const cores = base64Cores(secret);
  const hex = Buffer.from(secret).toString('hex');
  forms = {
    plain: long([secret, encodeURIComponent(secret), hex, hex.toUpperCase()]),
    encoded: long(cores.flatMap((core) => [core, core.replace(/\+/g, '-').replace(/\//g, '_')])),
  };
  if (formsCache.size >= FORMS_CACHED) formsCache.delete(formsCache.keys().next().value!);
  formsCache.set(secret, forms);
  return forms;
}
