import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * The SSRF guard of the metadata-document fetcher (draft-ietf-oauth-client-id-metadata-document, Security
 * Considerations, SSRF): a document host must resolve only to public unicast addresses, unless the operator
 * allowlisted the host. Ranges from the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890).
 */
const NOT_PUBLIC_V4 = new BlockList();
// Separate lists: a BlockList checks an IPv4 address against its IPv6 rules too (as IPv4-mapped), which would make
// the IPv4-mapped range below swallow every IPv4 address.
const NOT_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network" (RFC 791)
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback (RFC 1122)
  ['169.254.0.0', 16], // link-local, cloud metadata services (RFC 3927)
  ['172.16.0.0', 12], // private (RFC 1918)
  ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
  ['192.0.2.0', 24], // documentation (RFC 5737)
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast (RFC 7526)
  ['192.168.0.0', 16], // private (RFC 1918)
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['198.51.100.0', 24], // documentation (RFC 5737)
  ['203.0.113.0', 24], // documentation (RFC 5737)
  ['224.0.0.0', 4], // multicast (RFC 5771)
  ['240.0.0.0', 4], // reserved, and the limited broadcast address (RFC 1112, RFC 919)
] as const) {
  NOT_PUBLIC_V4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible addresses (RFC 4291)
  ['::ffff:0:0', 96], // IPv4-mapped addresses: a way to spell any IPv4 address, private ones included (RFC 4291)
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation (RFC 8215)
  ['100::', 64], // discard-only (RFC 6666)
  ['2001::', 32], // Teredo, which embeds an IPv4 address (RFC 4380)
  ['2001:2::', 48], // benchmarking (RFC 5180)
  ['2001:10::', 28], // deprecated ORCHID (RFC 4843)
  ['2001:db8::', 32], // documentation (RFC 3849)
  ['2002::', 16], // 6to4, which embeds an IPv4 address (RFC 3056)
  ['fc00::', 7], // unique local addresses (RFC 4193)
  ['fe80::', 10], // link-local (RFC 4291)
  ['fec0::', 10], // deprecated site-local (RFC 3879)
  ['ff00::', 8], // multicast (RFC 4291)
] as const) {
  NOT_PUBLIC_V6.addSubnet(network, prefix, 'ipv6');
}

/**
 * The NAT64 Well-Known Prefix 64:ff9b::/96 (RFC 6052 2.1) carries an IPv4 address in its last 32 bits, and a NAT64
 * gateway connects to that IPv4 address: 64:ff9b::7f00:1 reaches 127.0.0.1. The prefix is not refused as a whole,
 * because on an IPv6-only host behind DNS64 every IPv4-only public host resolves into it; instead the embedded IPv4
 * address is judged like any other (RFC 6052 3.1 already forbids the prefix for non-global IPv4 addresses).
 */
const NAT64_WELL_KNOWN = new BlockList();
NAT64_WELL_KNOWN.addSubnet('64:ff9b::', 96, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted-quad tail converted); the address must pass isIP. */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const start = parse(head);
  const end = tail === undefined ? [] : parse(tail);
  return [...start, ...Array<number>(8 - start.length - end.length).fill(0), ...end];
}

/** True for every address that is not public unicast: private, loopback, link-local, unique-local, reserved, or not an address at all. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return NOT_PUBLIC_V4.check(address, 'ipv4');
  if (NAT64_WELL_KNOWN.check(address, 'ipv6')) {
    const groups = ipv6Groups(address);
    const high = groups[6] ?? 0;
    const low = groups[7] ?? 0;
    return isPrivateAddress([high >> 8, high & 0xff, low >> 8, low & 0xff].join('.'));
  }
  return NOT_PUBLIC_V6.check(address, 'ipv6');
}

/** Raised by the guarded lookup; the fetcher reports it as a refused private address. */
export class PrivateAddressError extends Error {
  readonly code = 'ERR_SCHOOLGATE_PRIVATE_ADDRESS';
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(`${hostname} resolves to ${address}, which is not a public address`);
  }
}

/** The part of dns.lookup the guard needs, injectable for tests: every address of a host name. */
export type ResolveAll = (hostname: string, family: number | undefined, callback: (error: Error | null, addresses: dns.LookupAddress[]) => void) => void;

const systemResolveAll: ResolveAll = (hostname, family, callback) =>
  dns.lookup(hostname, { all: true, family: family ?? 0 }, (error, addresses) => callback(error, addresses ?? []));

/**
 * A `lookup` for node:net that resolves every address of the host and refuses the connection when any of them is not
 * public, so a name cannot smuggle in an internal address next to a public one. The addresses checked are the ones
 * the socket then connects to, so a second DNS answer (rebinding) cannot slip past the check.
 */
export function guardedLookup(allowPrivate: boolean, resolveAll: ResolveAll = systemResolveAll): LookupFunction {
  return (hostname, options, callback) => {
    const family = typeof options.family === 'number' ? options.family : undefined;
    resolveAll(hostname, family, (error, addresses) => {
      if (error) return callback(error as NodeJS.ErrnoException, '', 0);
      const refused = allowPrivate ? undefined : addresses.find((entry) => isPrivateAddress(entry.address));
      if (refused) return callback(new PrivateAddressError(hostname, refused.address) as NodeJS.ErrnoException, '', 0);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/** node:net does not call `lookup` for a host that is an IP literal, so those are checked before connecting. */
export function literalAddressProblem(hostname: string, allowPrivate: boolean): PrivateAddressError | null {
  const address = hostname.replace(/^\[(.*)\]$/, '$1');
  if (allowPrivate || isIP(address) === 0 || !isPrivateAddress(address)) return null;
  return new PrivateAddressError(hostname, address);
}
