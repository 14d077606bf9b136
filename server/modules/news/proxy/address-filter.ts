import { BlockList, isIP } from 'node:net';

/**
 * Which IP addresses the image proxy may connect to: public unicast only. Refused: loopback, private,
 * link-local (with the cloud metadata address), CGNAT, multicast, broadcast, documentation, benchmarking
 * and every other special-purpose range in the IANA registries, for IPv4 and IPv6; an IPv4-mapped or
 * NAT64 IPv6 address is judged by the IPv4 address inside it.
 */
const V4_RESERVED: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT (also Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (AWS/GCP/Azure metadata 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.31.196.0', 24], // AS112
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
];

const V6_RESERVED: readonly [string, number][] = [
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID…)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (tunnels to any IPv4)
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 SIDs
];

const v4Blocked = new BlockList();
for (const [net, bits] of V4_RESERVED) v4Blocked.addSubnet(net, bits, 'ipv4');
const v6Blocked = new BlockList();
for (const [net, bits] of V6_RESERVED) v6Blocked.addSubnet(net, bits, 'ipv6');
const v6GlobalUnicast = new BlockList();
v6GlobalUnicast.addSubnet('2000::', 3, 'ipv6');

/** The 8 groups of an IPv6 address as numbers; null when not IPv6. */
function v6Groups(ip: string): number[] | null {
  if (isIP(ip) !== 6) return null;
  let text = ip.toLowerCase().split('%')[0] ?? '';
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => parseInt(g, 16));
}

/** The IPv4 address carried by an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) address. */
export function embeddedV4(ip: string): string | null {
  const g = v6Groups(ip);
  if (g === null) return null;
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  if (!mapped && !nat64) return null;
  const hi = g[6] ?? 0;
  const lo = g[7] ?? 0;
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** True for a public unicast address the proxy may reach. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return !v4Blocked.check(ip, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedV4(ip);
  if (inner !== null) return isPublicAddress(inner);
  const plain = ip.split('%')[0] ?? '';
  return v6GlobalUnicast.check(plain, 'ipv6') && !v6Blocked.check(plain, 'ipv6');
}

/** The filter the proxy uses; tests add loopback addresses that they declare "public". */
export function addressFilter(testAllowlist: readonly string[] = []): (ip: string) => boolean {
  const allowed = new Set(testAllowlist);
  return (ip) => allowed.has(ip) || isPublicAddress(ip);
}
