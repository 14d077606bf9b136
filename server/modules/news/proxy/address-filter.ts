import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses the image proxy may connect to: public unicast only, as ipaddr.js reads the IANA
 * special-purpose registries. Refused: unspecified, loopback, private, link-local (with the cloud
 * metadata address), CGNAT, multicast, broadcast, unique-local, site-local, documentation,
 * benchmarking, AS112, AMT, ORCHID, discard-only, SRv6 and every other reserved range, for IPv4 and
 * IPv6. An IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) address is judged by the IPv4
 * address inside it. Any other IPv6 address must also be global unicast (2000::/3), which refuses the
 * IPv4-compatible (::a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d) forms; the 6to4 and Teredo
 * tunnels are refused whole, since they lead to any IPv4 address.
 */

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
/** RFC 6052's well-known prefix; the local-use 64:ff9b:1::/48 is refused with the reserved ranges. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/** True for a public unicast address the proxy may reach. */
export function isPublicAddress(ip: string): boolean {
  // Only the standard notations: `127.1` or `0x7f.0.0.1` are host names here, never addresses.
  if (isIP(ip) === 0 || !ipaddr.isValid(ip)) return false;
  // ipaddr.js reads this one notation of an IPv4-compatible address (deprecated: ::8.8.8.8) as if it
  // were IPv4-mapped (::ffff:8.8.8.8); refused here, as its hex form (::808:808) is below.
  if (/^::\d+\.\d+\.\d+\.\d+(%.*)?$/.test(ip)) return false;
  // process() turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
  const address = ipaddr.process(ip);
  if (address instanceof ipaddr.IPv4) return address.range() === 'unicast';
  if (address.match(NAT64))
    return isPublicAddress(ipaddr.fromByteArray(address.toByteArray().slice(12)).toString());
  return address.range() === 'unicast' && address.match(GLOBAL_UNICAST);
}

/** The filter the proxy uses; tests add loopback addresses that they declare "public". */
export function addressFilter(testAllowlist: readonly string[] = []): (ip: string) => boolean {
  const allowed = new Set(testAllowlist);
  return (ip) => allowed.has(ip) || isPublicAddress(ip);
}
