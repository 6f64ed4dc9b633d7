import { BlockList, isIP } from "node:net";
import { AppError } from "../errors.js";

/**
 * IPv4 networks that are not the internet: unspecified ("this network", which Linux connects to
 * as loopback), private, carrier-grade NAT, loopback, link-local (where clouds answer their
 * metadata, credentials included), IETF protocol assignments, documentation, the 6to4 relay,
 * benchmarking, multicast, and reserved up to the broadcast address.
 */
const PRIVATE_IPV4: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

/**
 * IPv6 networks that are not the internet: unspecified, loopback, discard-only, documentation,
 * unique local, link-local, site-local, multicast, and the translations whose IPv4 address
 * cannot be read off the last 32 bits (local-use NAT64, 6to4).
 */
const PRIVATE_IPV6: [string, number][] = [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  ["64:ff9b:1::", 48],
  ["2002::", 16],
];

/**
 * IPv6 prefixes whose last 32 bits are an IPv4 address that the host or the network reaches:
 * IPv4-compatible (::/96), IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96) and
 * NAT64 (64:ff9b::/96). Such an address is as private as its IPv4 address, no more: a NAT64
 * network gives every IPv4-only host of the internet one.
 */
const IPV4_EMBEDDING_PREFIXES = ["::", "::ffff:", "::ffff:0:", "64:ff9b::"];

const PRIVATE_NETWORKS = new BlockList();
for (const [network, prefix] of PRIVATE_IPV4) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, "ipv4");
  const [a, b, c, d] = network.split(".").map(Number) as [number, number, number, number];
  const groups = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  for (const embedding of IPV4_EMBEDDING_PREFIXES) {
    PRIVATE_NETWORKS.addSubnet(`${embedding}${groups}`, 96 + prefix, "ipv6");
  }
}
for (const [network, prefix] of PRIVATE_IPV6) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, "ipv6");
}

/** Whether an IP address (v4 or v6, without brackets) is of the service's machine or network. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) throw new TypeError(`not an IP address: ${address}`);
  return PRIVATE_NETWORKS.check(address, family === 4 ? "ipv4" : "ipv6");
}

/**
 * Whether the URL's host is the service's own machine or network as written: an address (in
 * any form the URL parser accepts: `http://2130706433` is 127.0.0.1) or `localhost`. A name
 * that resolves to such an address passes here; the outbound module (net/outbound.ts) refuses
 * it when it connects, since what a name resolves to can change after it was checked.
 */
export function isPrivateHost(url: string): boolean {
  const host = new URL(url).hostname
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "")
    .toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  return isIP(host) !== 0 && isPrivateAddress(host);
}

/**
 * Refuses a URL the service would send requests to (a platform, a webhook endpoint) when it
 * names the service's own machine or network: someone who may only administer a store must not
 * aim the service at hosts the internet cannot reach, and read how they answer. Operators allow
 * it with ALLOW_PRIVATE_URLS (a shop on the same network, a local webhook receiver). This is the
 * early answer to a URL written that way; the outbound module checks every connection.
 */
export function refusePrivateHost(url: string, pointer = "/url"): void {
  if (!isPrivateHost(url)) return;
  const message = "must not be a loopback, private or link-local address, or localhost";
  throw new AppError("validation-failed", `body${pointer}: ${message}`, [
    { location: "body", pointer, message, code: "private_host" },
  ]);
}
