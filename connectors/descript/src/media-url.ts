import { isIP } from 'node:net';
import { type AddressClass, classifyAddress, describeAddressClass } from '@plugboard/sdk';

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
 * - in production, hosts that are loopback, private, link-local, unique-local or cloud metadata
 *   addresses, also in their IPv4-mapped, NAT64 (64:ff9b::/96), 6to4 (2002::/16) and Teredo
 *   forms, classified by the SDK's network policy. Only literal addresses and `localhost` are
 *   recognised: no DNS lookup is made, so a public name that resolves to a private address is
 *   not caught here.
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

const COUNTRY_DOMAIN = new RegExp(
  `(?:^|\\.)((?:${VIDEO_SHARING_COUNTRY_SITES.join('|')})\\.(?:(?:co|com)\\.)?[a-z]{2})$`,
);

function hostOf(url: URL): string {
  // IPv6 literals come bracketed; a trailing dot names the same host.
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

function videoSharingSite(host: string): string | undefined {
  return (
    VIDEO_SHARING_HOSTS.find((site) => host === site || host.endsWith(`.${site}`)) ?? COUNTRY_DOMAIN.exec(host)?.[1]
  );
}

/** What is wrong with a media URL in any environment; undefined when nothing is. */
export function mediaUrlProblem(value: string): string | undefined {
  // Sent as given (a pre-signed URL must keep its bytes), so it must already be a valid URI.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what a URL must not carry raw.
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

/**
 * The address classes a media URL's host may not be in production, as the SDK's classifier tells
 * them, also when carried in an IPv6 address (IPv4-mapped, NAT64, 6to4, Teredo). Reserved
 * ranges (documentation, future use) pass: no provider reaches those either way.
 */
const REFUSED_CLASSES: ReadonlySet<AddressClass> = new Set<AddressClass>([
  'loopback',
  'private',
  'link-local',
  'unique-local',
  'metadata',
  'unspecified',
  'broadcast',
  'multicast',
]);

/**
 * Why a media URL must not be imported in production: its host is `localhost` or a literal
 * loopback, private, link-local, unique-local or metadata address, or an IPv6 address carrying
 * one. Undefined otherwise (and for URLs that do not parse, which `mediaUrlProblem` refuses
 * anyway).
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
          // WHATWG URL already wrote decimal, hex and octal IPv4 forms as dotted quads.
          const address = isIP(host) === 0 ? undefined : classifyAddress(host);
          return address && REFUSED_CLASSES.has(address.class)
            ? describeAddressClass(address.class, address.embedding)
            : undefined;
        })();
  return kind
    ? `the host ${url.hostname} is ${kind}; in production media must come from a public or pre-signed URL the provider can reach`
    : undefined;
}
