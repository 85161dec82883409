import type { LookupAddress, LookupOptions } from 'node:dns';
import { createRequire } from 'node:module';
import { isIP, type LookupFunction } from 'node:net';
import type { Environment } from '../definition/environment.js';
import { AddressRefusedError } from '../errors.js';

/**
 * The network policy of the transport: which addresses a run may connect to, checked on the
 * address actually connected to (after name resolution, at every redirect hop).
 *
 * - production refuses loopback, private (RFC 1918, CGNAT 100.64/10, deprecated site-local
 *   fec0::/10, local-use NAT64 64:ff9b:1::/48), link-local, unique-local, cloud metadata, unspecified, broadcast, multicast and
 *   reserved addresses (documentation, benchmarking and future-use ranges, IPv6 outside
 *   2000::/3), also when an IPv6 address carries such an IPv4 address (IPv4-mapped,
 *   IPv4-translated, IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo);
 * - sandbox refuses the same except loopback (127/8, ::1 and ::ffff:127.x.y.z), where local
 *   simulators listen; loopback carried through NAT64, 6to4 or Teredo is another machine's
 *   loopback and stays refused;
 * - the host may allow ranges (`allow`, CIDR): an address in one, or an IPv6 address whose
 *   carried IPv4 address is in one, is let through in every environment;
 * - well-known cloud metadata host names (`metadata.google.internal`, `instance-data` ...) are
 *   refused before they are looked up, in every environment and whatever the host allows: a
 *   range allows addresses, and a host that means to reach its metadata server allows its
 *   address and uses that.
 *
 * Addresses are classified with ipaddr.js, loaded on the first check.
 */

/** What an address is. `public` is the only class the policy never refuses. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'metadata'
  | 'unspecified'
  | 'broadcast'
  | 'multicast'
  | 'reserved';

/** How an IPv6 address carries the IPv4 address that was classified. */
export type AddressEmbedding = 'ipv4-mapped' | 'ipv4-translated' | 'ipv4-compatible' | 'nat64' | '6to4' | 'teredo';

/** What `classifyAddress` says of an IP address, as the SDK's own code names it. */
type AddressClassification = NonNullable<ReturnType<typeof classifyAddress>>;

export interface AddressRefusal {
  class: Exclude<AddressClass, 'public'>;
  embedding: AddressEmbedding | undefined;
  /** The reason in words, e.g. `a cloud metadata address inside a NAT64 address`. */
  reason: string;
}

/** The network policy of a transport (`createTransport({ network })`): the ranges let through besides the environment's own. */
export interface NetworkOptions {
  /**
   * Address ranges let through whatever their class, in every environment: CIDR
   * (`10.0.0.0/8`, `fd00::/8`) or single addresses (`10.1.2.3`). An IPv6 address carrying an
   * IPv4 address (IPv4-mapped, NAT64, 6to4 ...) is let through when that IPv4 address is.
   * IPv4 ranges are written in four-part decimal. Default: none.
   */
  allow?: readonly string[];
  /**
   * Resolves names instead of `dns.lookup` (the same signature; it is called with `all: true`).
   * Tests answer names from a table with it; every address it gives is checked.
   */
  lookup?: LookupFunction;
}

type IpAddr = typeof import('ipaddr.js');
type Address = ReturnType<IpAddr['parse']>;
type IPv4 = InstanceType<IpAddr['IPv4']>;
type IPv6 = InstanceType<IpAddr['IPv6']>;
type Range = [Address, number];

const load = createRequire(import.meta.url);
let library: IpAddr | undefined;
const ipaddr = (): IpAddr => (library ??= load('ipaddr.js') as IpAddr);

/**
 * Well-known cloud metadata and credential endpoints: AWS (instance metadata on IPv4 and IPv6,
 * ECS task metadata, EKS Pod Identity), Google Cloud (also on IPv6), Azure, Oracle Cloud,
 * OpenStack, DigitalOcean, Hetzner (169.254.169.254), Alibaba Cloud (100.100.100.200),
 * Tencent Cloud (169.254.0.23) and Oracle Cloud Classic (192.0.0.192).
 */
export const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  '169.254.0.23',
  '100.100.100.200',
  '192.0.0.192',
  'fd00:ec2::254',
  'fd00:ec2::23',
  'fd20:ce::254',
];

/**
 * Well-known host names of cloud metadata servers, refused before they are looked up (lower
 * case, without a trailing dot):
 * - `metadata.google.internal`: Google Cloud's name for its metadata server, in its documentation
 *   and client libraries;
 * - `metadata`: the short name Google Compute Engine images resolve through their `google.internal`
 *   search domain and hosts file, which older Google client libraries used;
 * - `metadata.goog`: the other name Google gives its metadata server (GKE's metadata server too);
 * - `instance-data`: the name Amazon's VPC resolver gives the EC2 instance metadata service.
 * Azure, Oracle Cloud, Alibaba Cloud, OpenStack and DigitalOcean publish an address, no name.
 */
export const METADATA_HOST_NAMES: readonly string[] = [
  'metadata.google.internal',
  'metadata',
  'metadata.goog',
  'instance-data',
];

/** EC2 gives `instance-data` in its regions' internal domains too: `instance-data.ec2.internal`, `instance-data.eu-west-1.compute.internal`. */
const INSTANCE_DATA = /^instance-data\.(?:ec2\.internal|[a-z0-9-]+\.compute\.internal)$/;

const METADATA_NAMES = new Set(METADATA_HOST_NAMES);

/** True for a well-known cloud metadata host name, in any case, with or without trailing dots. */
function isMetadataHostName(host: string): boolean {
  let end = host.length;
  while (end > 0 && host.charCodeAt(end - 1) === 46) end -= 1;
  // The longest name checked is short: a long host is none of them, and is not lowered in full.
  if (end === 0 || end > 80) return false;
  const name = host.slice(0, end).toLowerCase();
  return METADATA_NAMES.has(name) || INSTANCE_DATA.test(name);
}

/** The refusal of a metadata host name: no range the host allows says a name is meant. */
const METADATA_NAME_REFUSAL: AddressRefusal = {
  class: 'metadata',
  embedding: undefined,
  reason: 'a cloud metadata host name',
};

let metadata: Set<string> | undefined;
function isMetadata(address: Address): boolean {
  metadata ??= new Set(METADATA_ADDRESSES.map((text) => ipaddr().parse(text).toNormalizedString()));
  return metadata.has(address.toNormalizedString());
}

function v4(high: number, low: number): IPv4 {
  return new (ipaddr().IPv4)([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function classifyV4(address: IPv4): AddressClass {
  if (isMetadata(address)) return 'metadata';
  switch (address.range()) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
    case 'carrierGradeNat':
      return 'private';
    case 'linkLocal':
      return 'link-local';
    case 'unspecified':
      return 'unspecified';
    case 'broadcast':
      return 'broadcast';
    case 'multicast':
      return 'multicast';
    default:
      // reserved, documentation, benchmarking, AS112, AMT and any range ipaddr.js names later.
      return 'reserved';
  }
}

/** The IPv4 address an IPv6 address carries, and how; undefined when it carries none. */
function embedded(address: IPv6): [IPv4, AddressEmbedding] | undefined {
  const [p0, p1, p2, p3, p4, p5, p6, p7] = address.parts as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (p0 === 0 && p1 === 0 && p2 === 0 && p3 === 0) {
    if (p4 === 0 && p5 === 0xffff) return [v4(p6, p7), 'ipv4-mapped'];
    if (p4 === 0xffff && p5 === 0) return [v4(p6, p7), 'ipv4-translated'];
    // ::a.b.c.d, but not :: and ::1.
    if (p4 === 0 && p5 === 0 && (p6 !== 0 || p7 > 1)) return [v4(p6, p7), 'ipv4-compatible'];
    return undefined;
  }
  if (p0 === 0x64 && p1 === 0xff9b && p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0) return [v4(p6, p7), 'nat64'];
  if (p0 === 0x2002) return [v4(p1, p2), '6to4'];
  // Teredo: the client's address, every bit inverted, in the last 32 bits.
  if (p0 === 0x2001 && p1 === 0) return [v4(p6 ^ 0xffff, p7 ^ 0xffff), 'teredo'];
  return undefined;
}

function classifyV6(address: IPv6): AddressClassification {
  if (isMetadata(address)) return { class: 'metadata' };
  const carried = embedded(address);
  if (carried) {
    const [inner, embedding] = carried;
    const kind = classifyV4(inner);
    // ::a.b.c.d is deprecated and routed nowhere: reserved even when the address it carries is public.
    return { class: kind === 'public' && embedding === 'ipv4-compatible' ? 'reserved' : kind, embedding };
  }
  const range = address.range();
  switch (range) {
    case 'unspecified':
      return { class: 'unspecified' };
    case 'loopback':
      return { class: 'loopback' };
    case 'linkLocal':
      return { class: 'link-local' };
    case 'uniqueLocal':
      return { class: 'unique-local' };
    case 'multicast':
      return { class: 'multicast' };
    default:
      break;
  }
  if ((range as string) === 'deprecatedSiteLocal') return { class: 'private' };
  // The local-use NAT64 prefix 64:ff9b:1::/48 translates inside one network, to an IPv4
  // address whose place in it depends on the local prefix length: private, whatever it carries.
  if (range === 'rfc6052') return { class: 'private' };
  // Global unicast is 2000::/3; the rest of the space (and ipaddr.js's special ranges inside it,
  // such as documentation, benchmarking and ORCHID) is reserved.
  const globalUnicast = (address.parts[0]! & 0xe000) === 0x2000;
  return { class: globalUnicast && range === 'unicast' ? 'public' : 'reserved' };
}

function parse(text: string): Address | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const lib = ipaddr();
  return lib.isValid(bare) ? lib.parse(bare) : undefined;
}

/**
 * What an IP address is: `{ class }`, with `embedding` when the class is that of an IPv4
 * address carried in an IPv6 one. IPv6 may come bracketed as in a URL; IPv4 in any form
 * ipaddr.js reads (`2852039166`, `0xA9FEA9FE`). Undefined for text that is not an address.
 */
export function classifyAddress(text: string):
  | {
      /** The class of the address, or of the IPv4 address it carries (`embedding`). */
      class: AddressClass;
      /** Set when the class is that of an IPv4 address carried in an IPv6 one. */
      embedding?: AddressEmbedding;
    }
  | undefined {
  const address = parse(text);
  if (!address) return undefined;
  return address.kind() === 'ipv4' ? { class: classifyV4(address as IPv4) } : classifyV6(address as IPv6);
}

const CLASS_WORDS: Record<AddressClass, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  'unique-local': 'a unique-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

const EMBEDDING_WORDS: Record<AddressEmbedding, string> = {
  'ipv4-mapped': 'an IPv4-mapped IPv6 address',
  'ipv4-translated': 'an IPv4-translated IPv6 address',
  'ipv4-compatible': 'an IPv4-compatible IPv6 address',
  nat64: 'a NAT64 address (64:ff9b::/96)',
  '6to4': 'a 6to4 address (2002::/16)',
  teredo: 'a Teredo address',
};

/** The reason in words for a class (and embedding), e.g. `a link-local address inside a 6to4 address (2002::/16)`. */
export function describeAddressClass(kind: AddressClass, embedding?: AddressEmbedding): string {
  return embedding ? `${CLASS_WORDS[kind]} inside ${EMBEDDING_WORDS[embedding]}` : CLASS_WORDS[kind];
}

/** True for a range `allow` takes: CIDR or a single address, IPv4 in four-part decimal. */
export function isAddressRange(text: string): boolean {
  return compileRange(text) !== undefined;
}

function compileRange(text: string): Range | undefined {
  const lib = ipaddr();
  if (lib.IPv4.isValidCIDRFourPartDecimal(text)) return lib.IPv4.parseCIDR(text);
  if (lib.IPv4.isValidFourPartDecimal(text)) return [lib.IPv4.parse(text), 32];
  if (!text.includes('.') || text.includes(':')) {
    if (lib.IPv6.isValidCIDR(text)) return lib.IPv6.parseCIDR(text);
    if (lib.IPv6.isValid(text)) return [lib.IPv6.parse(text), 128];
  }
  return undefined;
}

const compiled = new WeakMap<readonly string[], readonly Range[]>();

/** The ranges of an allow list, compiled once per list; a range that is not one throws a TypeError. */
function allowRanges(allow: readonly string[]): readonly Range[] {
  let ranges = compiled.get(allow);
  if (!ranges) {
    ranges = allow.map((text) => {
      const range = typeof text === 'string' ? compileRange(text.trim()) : undefined;
      if (!range)
        throw new TypeError(
          `network.allow: ${JSON.stringify(text)} is not an address range (CIDR such as 10.0.0.0/8 or fd00::/8, or one address)`,
        );
      return range;
    });
    compiled.set(allow, ranges);
  }
  return ranges;
}

function inRanges(address: Address, ranges: readonly Range[]): boolean {
  return ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
}

/**
 * Why the policy of `environment` refuses to connect to `address`; undefined when it may.
 * Text that is not an address is not refused here: a name is checked on what it resolves to.
 */
export function addressRefusal(
  address: string,
  environment: Environment,
  allow: readonly string[] = [],
): AddressRefusal | undefined {
  const parsed = parse(address);
  if (!parsed) return undefined;
  let classification: AddressClassification;
  let carried: IPv4 | undefined;
  if (parsed.kind() === 'ipv4') classification = { class: classifyV4(parsed as IPv4) };
  else {
    classification = classifyV6(parsed as IPv6);
    carried = classification.embedding ? embedded(parsed as IPv6)?.[0] : undefined;
  }
  const kind = classification.class;
  if (kind === 'public') return undefined;
  const embedding = classification.embedding;
  // The loopback of this machine, not of a NAT64 gateway or a 6to4 or Teredo relay.
  if (environment === 'sandbox' && kind === 'loopback' && (embedding === undefined || embedding === 'ipv4-mapped'))
    return undefined;
  if (allow.length > 0) {
    const ranges = allowRanges(allow);
    if (inRanges(parsed, ranges) || (carried !== undefined && inRanges(carried, ranges))) return undefined;
  }
  return { class: kind, embedding, reason: describeAddressClass(kind, embedding) };
}

type LookupCallback = Parameters<LookupFunction>[2];

/** How many address literals a policy keeps its verdict on, per environment. */
const LITERALS_KEPT = 64;

/**
 * A transport's network policy: the ranges the host allows, the check of a URL's address
 * literal before sending, and, per environment, a lookup for the connections that answers only
 * the addresses the policy lets through.
 */
export class NetworkPolicy {
  readonly allow: readonly string[];
  private readonly resolve: LookupFunction | undefined;
  private readonly lookups = new Map<Environment, LookupFunction>();
  /** The verdicts on address literals met in URLs, per environment (`null`: let through): a run sends to few. */
  private readonly literals = new Map<Environment, Map<string, AddressRefusal | null>>();

  constructor(options: NetworkOptions = {}) {
    this.allow = Object.freeze([...(options.allow ?? [])]);
    if (this.allow.length > 0) allowRanges(this.allow);
    this.resolve = options.lookup;
  }

  /** Why `address` is refused in `environment`, or undefined. */
  refusal(address: string, environment: Environment): AddressRefusal | undefined {
    return addressRefusal(address, environment, this.allow);
  }

  /**
   * Throws an AddressRefusedError when the URL's host is an address the policy refuses. A URL
   * spells an address literal in one form only (WHATWG URL turns `2852039166`, `0xA9FEA9FE` or
   * `0251.0376.0251.0376` into 169.254.169.254); a name is left to the lookup.
   */
  checkUrl(url: URL, environment: Environment): void {
    const host = url.hostname;
    if (isMetadataHostName(host)) throw new AddressRefusedError(host, METADATA_NAME_REFUSAL, environment, false);
    let verdicts = this.literals.get(environment);
    let refused = verdicts?.get(host);
    if (refused === undefined) {
      const address = host.startsWith('[') ? host.slice(1, -1) : host;
      if (isIP(address) === 0) return;
      refused = this.refusal(address, environment) ?? null;
      if (!verdicts) this.literals.set(environment, (verdicts = new Map()));
      // Bounded: a provider redirecting to ever new addresses does not grow it.
      if (verdicts.size < LITERALS_KEPT) verdicts.set(host, refused);
    }
    if (refused) throw new AddressRefusedError(host, refused, environment, false);
  }

  /** The lookup of connections made for runs in `environment`. */
  lookup(environment: Environment): LookupFunction {
    let lookup = this.lookups.get(environment);
    if (!lookup) {
      lookup = this.checkingLookup(environment);
      this.lookups.set(environment, lookup);
    }
    return lookup;
  }

  private checkingLookup(environment: Environment): LookupFunction {
    return (hostname: string, options: LookupOptions, callback: LookupCallback) => {
      // Also here, for a connection whose URL was not checked first: such a name is never looked up.
      if (isMetadataHostName(hostname)) {
        const refused = new AddressRefusedError(hostname, METADATA_NAME_REFUSAL, environment, false);
        queueMicrotask(() => callback(refused, options.all ? [] : ''));
        return;
      }
      const resolve = this.resolve ?? (process.getBuiltinModule('node:dns').lookup as LookupFunction);
      resolve(hostname, { ...options, all: true }, (error, answer) => {
        if (error) return callback(error, options.all ? [] : '');
        const addresses: LookupAddress[] =
          typeof answer === 'string' ? [{ address: answer, family: isIP(answer) }] : answer;
        const permitted: LookupAddress[] = [];
        let refused: AddressRefusal | undefined;
        for (const entry of addresses) {
          const why = this.refusal(entry.address, environment);
          if (why) refused ??= why;
          else if (isIP(entry.address) !== 0) permitted.push(entry);
        }
        if (permitted.length === 0) {
          const failure = refused
            ? new AddressRefusedError(hostname, refused, environment, true)
            : Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
          return callback(failure, options.all ? [] : '');
        }
        if (options.all) return callback(null, permitted);
        const [first] = permitted as [LookupAddress];
        return callback(null, first.address, first.family);
      });
    };
  }
}

/** The AddressRefusedError in an error's cause chain (fetch wraps it in a TypeError), if any. */
export function refusalIn(error: unknown): AddressRefusedError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 8; depth += 1) {
    if (current instanceof AddressRefusedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
