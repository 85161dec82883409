/**
 * A provider's plain HMAC over the raw body, in one named header with a prefix and an encoding:
 * GitHub's `x-hub-signature-256: sha256=<hex>`, Shopify's `x-shopify-hmac-sha256: <base64>`.
 */
import { headerText } from './headers.js';
import { type HmacAlgorithm, hmacOf, matchesAny } from './hmac.js';
import { bodyToSign, headerObject, issue, rawBody, refuseIssues, secretText } from './input-checks.js';
import { decodeDigest } from './signature-values.js';

/** A header name as HTTP allows it (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PRINTABLE = /^[\x20-\x7e]*$/;
const DIGEST_BYTES: Record<HmacAlgorithm, number> = { sha256: 32, sha1: 20 };

function optionIssues(options: Record<string, unknown>) {
  return [
    issue('header', options['header'], (value) =>
      typeof value === 'string' && HEADER_NAME.test(value) ? undefined : 'must be a header name',
    ),
    issue('prefix', options['prefix'], (value) =>
      value === undefined || (typeof value === 'string' && PRINTABLE.test(value))
        ? undefined
        : 'must be printable ASCII',
    ),
    issue('encoding', options['encoding'], (value) =>
      value === 'hex' || value === 'base64' ? undefined : "must be 'hex' or 'base64'",
    ),
    issue('algorithm', options['algorithm'], (value) =>
      value === undefined || value === 'sha256' || value === 'sha1' ? undefined : "must be 'sha256' or 'sha1'",
    ),
  ];
}

/**
 * A provider's HMAC signature over the raw body, in the header `header` (any case), written as
 * `prefix` then the digest in `encoding` (`algorithm` SHA-256 unless told). `sign` gives the
 * header's value; `verify` says whether a request's header holds the body's signature under
 * `secret`, compared in constant time, and is false for a header missing, sent twice, of
 * another prefix or not a digest. Bad options, an empty secret, headers that are not an object
 * or a body that is not the raw bytes throw `InvalidInputError` naming the field. It checks no
 * timestamp: a provider that signs one needs a preset that does (`slackSignature`,
 * `verifyStandardWebhook`).
 * @example hmacSignature({ header: 'x-hub-signature-256', prefix: 'sha256=', encoding: 'hex' })
 */
export function hmacSignature(options: {
  header: string;
  /** Before the digest, e.g. `sha256=`; none unless told. */
  prefix?: string | undefined;
  encoding: 'hex' | 'base64';
  /** `sha256` unless told. */
  algorithm?: 'sha256' | 'sha1' | undefined;
}): {
  sign(body: Uint8Array | string, secret: string): string;
  verify(input: { headers: Record<string, string | string[] | undefined>; body: Uint8Array; secret: string }): boolean;
} {
  refuseIssues('hmacSignature', optionIssues(options as unknown as Record<string, unknown>));
  const header = options.header.toLowerCase();
  const prefix = options.prefix ?? '';
  const algorithm = options.algorithm ?? 'sha256';
  const format = { encoding: options.encoding, bytes: DIGEST_BYTES[algorithm] };
  const maxLength = prefix.length + (options.encoding === 'hex' ? format.bytes * 2 : Math.ceil(format.bytes / 3) * 4);
  return {
    sign(body, secret) {
      refuseIssues('hmacSignature sign', [issue('body', body, bodyToSign), issue('secret', secret, secretText)]);
      return `${prefix}${hmacOf(algorithm, secret, [body]).toString(options.encoding)}`;
    },
    verify({ headers, body, secret }) {
      refuseIssues('hmacSignature verify', [
        issue('headers', headers, headerObject),
        issue('body', body, rawBody),
        issue('secret', secret, secretText),
      ]);
      const text = headerText(headers, header, maxLength);
      if (text === undefined || !text.startsWith(prefix)) return false;
      const given = decodeDigest(text.slice(prefix.length), format);
      return given !== undefined && matchesAny(hmacOf(algorithm, secret, [body]), [given]);
    },
  };
}
