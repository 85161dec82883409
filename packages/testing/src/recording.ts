import { mapJson } from '@plugboard/sdk/host';
import { brotliDecompressSync, gunzipSync, inflateSync, inflateRawSync } from 'node:zlib';
import { type BodyType, type RecordedCall, type RecordedHeaders, REPLAY_ORIGIN } from './fixture.js';

/**
 * From what nock's recorder gives (one definition per call, `output_objects`)
 * to the calls of a fixture: paths without an origin, no hop-by-hop or
 * volatile headers, compressed bodies decoded so they can be read and redacted.
 */

/** The fields of a nock 15 recorder output object that we read. */
export interface NockRecording {
  scope: string | RegExp;
  method?: string;
  path: string | RegExp;
  body?: unknown;
  status?: number;
  response?: unknown;
  rawHeaders?: Record<string, string | string[]> | string[];
  reqheaders?: Record<string, unknown>;
  responseIsBinary?: boolean;
}

/** Request headers that say nothing about the call (the client adds them) and change between clients. */
const NOISY_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'accept-language',
  'accept-encoding',
  'sec-fetch-mode',
  'user-agent',
  'keep-alive',
  'transfer-encoding',
]);

/** Response headers that change on every recording or no longer fit the stored body. */
const NOISY_RESPONSE_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
]);

/** `http://host:port` with the default port spelled out, as nock keys scopes. */
export function normalOrigin(url: string | URL): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  return `${parsed.protocol}//${parsed.hostname}:${port}`;
}

/** Headers by lower-case name; a header that came more than once keeps every value, in order (two `Set-Cookie`). */
function headerRecord(
  raw: NockRecording['rawHeaders'] | NockRecording['reqheaders'],
  noisy: ReadonlySet<string>,
): RecordedHeaders | undefined {
  const entries: [string, string][] = [];
  if (Array.isArray(raw)) {
    for (let index = 0; index + 1 < raw.length; index += 2) entries.push([String(raw[index]), String(raw[index + 1])]);
  } else if (raw) {
    for (const [name, value] of Object.entries(raw)) {
      for (const item of Array.isArray(value) ? value : [value]) entries.push([name, String(item)]);
    }
  }
  const values = new Map<string, string[]>();
  for (const [rawName, value] of entries) {
    const name = rawName.toLowerCase();
    if (noisy.has(name)) continue;
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  if (values.size === 0) return undefined;
  return Object.fromEntries([...values].map(([name, list]) => [name, list.length === 1 ? list[0]! : list]));
}

function decompress(bytes: Buffer, encoding: string): Buffer {
  const steps = encoding
    .split(',')
    .map((step) => step.trim().toLowerCase())
    .filter((step) => step && step !== 'identity')
    .reverse();
  let result = bytes;
  for (const step of steps) {
    if (step === 'gzip' || step === 'x-gzip') result = gunzipSync(result);
    else if (step === 'br') result = brotliDecompressSync(result);
    else if (step === 'deflate') {
      try {
        result = inflateSync(result);
      } catch {
        result = inflateRawSync(result);
      }
    } else throw new Error(`unknown content-encoding ${step}`);
  }
  return result;
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** A body as bytes, told apart as JSON, text or binary. */
function bodyFromBytes(bytes: Buffer): { body?: unknown; bodyType?: BodyType } {
  if (bytes.length === 0) return {};
  if (!isUtf8(bytes)) return { body: bytes.toString('hex'), bodyType: 'hex' };
  const text = bytes.toString('utf8');
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') return { body: parsed, bodyType: 'json' };
  } catch {
    // Not JSON: kept as text.
  }
  return { body: text, bodyType: 'text' };
}

function responseBody(recording: NockRecording, encoding: string | undefined): { body?: unknown; bodyType?: BodyType } {
  const { response } = recording;
  if (encoding && Array.isArray(response) && response.every((chunk) => typeof chunk === 'string')) {
    const raw = Buffer.concat(response.map((chunk: string) => Buffer.from(chunk, 'hex')));
    let bytes: Buffer = raw;
    try {
      bytes = decompress(raw, encoding);
    } catch {
      // Not really compressed: the bytes are kept as they came.
    }
    return bodyFromBytes(bytes);
  }
  if (response === undefined || response === '') return {};
  if (recording.responseIsBinary && typeof response === 'string') return { body: response, bodyType: 'hex' };
  if (typeof response === 'string') return { body: response, bodyType: 'text' };
  return { body: response, bodyType: 'json' };
}

function requestBody(body: unknown): { body?: unknown; bodyType?: 'json' | 'text' } {
  if (body === undefined || body === '') return {};
  if (typeof body === 'string') return { body, bodyType: 'text' };
  return { body, bodyType: 'json' };
}

/**
 * The `Set-Cookie` values of each answer fetch gave while recording, in the order they came.
 * nock's recorder makes an object of the answer's headers, and fetch gives each `Set-Cookie`
 * apart (every other repeated header comes as one, its values joined): only the last would stay.
 */
export class SetCookieWatch {
  private readonly seen = new Map<string, string[][]>();
  private previous: typeof fetch | undefined;

  /** Watches `globalThis.fetch` as it is now (nock's recorder), until `stop`. */
  start(): void {
    const watched = globalThis.fetch;
    this.previous = watched;
    const seen = this.seen;
    globalThis.fetch = async function watching(input, init) {
      const response = await watched(input, init);
      const cookies = response.headers.getSetCookie();
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      const key = answerKey(method, input instanceof Request ? input.url : String(input), response.status);
      // Every answer, so each recorded one takes its own, however many cookies the others had.
      const list = seen.get(key);
      if (list) list.push(cookies);
      else seen.set(key, [cookies]);
      return response;
    };
  }

  stop(): void {
    if (this.previous) globalThis.fetch = this.previous;
    this.previous = undefined;
  }

  /** The `Set-Cookie` values of the next answer to this request, when it carried more than one. */
  take(method: string, url: string, status: number): string[] | undefined {
    const cookies = this.seen.get(answerKey(method, url, status))?.shift();
    return cookies && cookies.length > 1 ? cookies : undefined;
  }
}

function answerKey(method: string, url: string, status: number): string {
  const parsed = new URL(url);
  return `${method.toUpperCase()} ${normalOrigin(parsed)}${parsed.pathname}${parsed.search} ${status}`;
}

/** One fixture call per recorded definition; `providerOrigin` is the base URL's origin. */
export function callsFromRecording(
  recordings: readonly NockRecording[],
  providerOrigin: string,
  cookies?: SetCookieWatch,
): RecordedCall[] {
  const provider = normalOrigin(providerOrigin);
  return recordings.map((recording) => {
    const rawHeaders = recording.rawHeaders;
    const responseHeaders = headerRecord(rawHeaders, new Set());
    const kept = headerRecord(rawHeaders, NOISY_RESPONSE_HEADERS);
    const method = (recording.method ?? 'GET').toUpperCase();
    const every = cookies?.take(
      method,
      `${normalOrigin(String(recording.scope))}${recording.path}`,
      recording.status ?? 200,
    );
    if (kept && every && kept['set-cookie'] !== undefined) kept['set-cookie'] = every;
    const encoding = [responseHeaders?.['content-encoding'] ?? []].flat().join(', ') || undefined;
    const origin = normalOrigin(String(recording.scope));
    const call: RecordedCall = {
      request: {
        method,
        path: String(recording.path),
        ...headersField(
          headerRecord(recording.reqheaders as Record<string, string> | undefined, NOISY_REQUEST_HEADERS),
        ),
        ...requestBody(recording.body),
      },
      response: {
        status: recording.status ?? 200,
        ...headersField(kept),
        ...responseBody(recording, encoding),
      },
    };
    if (origin !== provider) call.origin = String(recording.scope);
    return call;
  });
}

function headersField(headers: RecordedHeaders | undefined): { headers?: RecordedHeaders } {
  return headers ? { headers } : {};
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Rewrites every mention of the recorded origin (a next-page URL, a Location
 * header, a URL in a record) to the replay origin, as is and URL-encoded, in
 * every string of a value, object keys included.
 */
export function originRewriter(recordedOrigin: string): <T>(value: T) => T {
  const url = new URL(recordedOrigin);
  const forms = new Set([url.origin, normalOrigin(url)]);
  const all = [...forms].flatMap((form) => [form, encodeURIComponent(form)]).sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`(?:${all.map(escapeRegExp).join('|')})(?![0-9])`, 'g');
  const replay = (match: string) => (match.startsWith('http') ? REPLAY_ORIGIN : encodeURIComponent(REPLAY_ORIGIN));
  const rewrite = (text: string) => text.replace(pattern, replay);
  return <T>(value: T) => mapJson(value, { text: rewrite, key: rewrite }) as T;
}
