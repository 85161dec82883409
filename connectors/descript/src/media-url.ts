import { isIP } from 'node:net';

/**
 * The checks on a media URL of media_imports.create, made before anything is sent. The provider
 * fetches the URL itself (it must be public or pre-signed and answer HTTP Range requests), so
 * what it cannot import, or must not be pointed at, is refused here with a clear message:
 *
 * - anything but http(s), and text that is not a valid URL as it stands (a space, say: URLs are
 *   sent as given, since re-encoding a pre-signed URL could break its signature);
 * - a user name or password in the URL (`https://user:pw@host/`): the provider would be sent the
 *   credentials and keep them with the project;
 * - pages of video-sharing sites (a watch page is not a media file);
 * - in production, hosts that are loopback, private or link-local addresses. Only literal
 *   addresses and `localhost` are recognised: no DNS lookup is made, so a public name that
 *   resolves to a private address is not caught here.
 */

/** Video-sharing sites: a URL on these hosts (or their subdomains) is a page, not a media file. */
export const VIDEO_SHARING_HOSTS: readonly string[] = [
  'youtube.com',
  'youtu.be',
  'youtube-nocookie.com',
  'youtube.googleapis.com',
  'vimeo.com',
  'tiktok.com',
  'dailymotion.com',
  'dai.ly',
  'twitch.tv',
  'facebook.com',
  'fb.com',
  'fb.me',
  'fb.watch',
  'instagram.com',
  'instagr.am',
  'x.com',
  'twitter.com',
  'rumble.com',
  'bilibili.com',
  'b23.tv',
  'streamable.com',
  'loom.com',
  'kick.com',
  'odysee.com',
  'vk.com',
  'vkvideo.ru',
  'ok.ru',
  'nicovideo.jp',
  'nico.ms',
];

/** Sites that also answer on country domains (youtube.de, youtube.co.uk, youtube.com.br), and their subdomains. */
export const VIDEO_SHARING_COUNTRY_SITES: readonly string[] = ['youtube', 'facebook'];

const COUNTRY_DOMAIN = new RegExp(`(?:^|\\.)((?:${VIDEO_SHARING_COUNTRY_SITES.join('|')})\\.(?:(?:co|com)\\.)?[a-z]{2})$`);

function hostOf(url: URL): string {
  // IPv6 literals come bracketed; a trailing dot names the same host.
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

function videoSharingSite(host: string): string | undefined {
  return VIDEO_SHARING_HOSTS.find((site) => host === site || host.endsWith(`.${site}`)) ?? COUNTRY_DOMAIN.exec(host)?.[1];
}

/** What is wrong with a media URL in any environment; undefined when nothing is. */
export function mediaUrlProblem(value: string): string | undefined {
  // Sent as given (a pre-signed URL must keep its bytes), so it must already be a valid URI.
  const raw = /[\s<>"{}|\\^`\u0000-\u001f\u007f-\uffff]/u.exec(value);
  if (raw) return `contains ${JSON.stringify(raw[0])}, which a URL must percent-encode (a space as %20)`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http(s) URL the provider can fetch (public or pre-signed)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must use http or https, not ${url.protocol.replace(/:$/, '')}: the provider fetches media over HTTP(S) only`;
  }
  if (url.username !== '' || url.password !== '') {
    return 'must not contain a user name or password (user:password@): the provider would receive them and keep them with the project; give a public or pre-signed URL instead';
  }
  const site = videoSharingSite(hostOf(url));
  if (site) {
    return `${site} is a video-sharing site: its pages are not media files and are refused; give a direct link to the media file (public or pre-signed, answering HTTP Range requests)`;
  }
  return undefined;
}

function ipv4Octets(text: string): number[] | undefined {
  if (isIP(text) !== 4) return undefined;
  return text.split('.').map(Number);
}

/** Why an IPv4 address is not a public one; undefined when it is. */
function ipv4Kind(octets: readonly number[]): string | undefined {
  const [a = 0, b = 0] = octets;
  if (a === 127) return 'a loopback address';
  if (a === 0) return 'an unspecified address';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'a private address';
  if (a === 100 && b >= 64 && b <= 127) return 'a private (shared) address';
  if (a === 169 && b === 254) return 'a link-local address';
  return undefined;
}

/** The 16 bytes of an IPv6 literal (URL hostnames are already normalised by WHATWG URL). */
function ipv6Bytes(text: string): number[] | undefined {
  if (isIP(text) !== 6) return undefined;
  let source = text;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(source);
  if (dotted?.[1]) {
    const octets = ipv4Octets(dotted[1]) ?? [0, 0, 0, 0];
    source = `${source.slice(0, -dotted[1].length)}${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const [head = '', tail] = source.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return all.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

function ipv6Kind(bytes: readonly number[]): string | undefined {
  const zeroUntil = (n: number) => bytes.slice(0, n).every((byte) => byte === 0);
  if (zeroUntil(15) && bytes[15] === 1) return 'a loopback address';
  if (zeroUntil(16)) return 'an unspecified address';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses carry an IPv4 address.
  if ((zeroUntil(10) && bytes[10] === 0xff && bytes[11] === 0xff) || zeroUntil(12)) return ipv4Kind(bytes.slice(12));
  const first = bytes[0] ?? 0;
  const second = bytes[1] ?? 0;
  if ((first & 0xfe) === 0xfc) return 'a private (unique local) address';
  if (first === 0xfe && (second & 0xc0) === 0x80) return 'a link-local address';
  if (first === 0xfe && (second & 0xc0) === 0xc0) return 'a private (site-local) address';
  return undefined;
}

/**
 * Why a media URL must not be imported in production: its host is `localhost` or a literal
 * loopback, private or link-local address. Undefined otherwise (and for URLs that do not parse,
 * which `mediaUrlProblem` refuses anyway).
 */
export function privateHostProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const host = hostOf(url);
  const kind =
    host === 'localhost' || host.endsWith('.localhost')
      ? 'a loopback name'
      : (() => {
          const v4 = ipv4Octets(host);
          if (v4) return ipv4Kind(v4);
          const v6 = ipv6Bytes(host);
          return v6 ? ipv6Kind(v6) : undefined;
        })();
  return kind
    ? `the host ${url.hostname} is ${kind}; in production media must come from a public or pre-signed URL the provider can reach`
    : undefined;
}
