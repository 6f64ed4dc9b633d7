import { BlockList, isIP } from "node:net";

/**
 * Addresses of the network the service runs in rather than of the internet: unspecified,
 * loopback, private, carrier-grade NAT and link-local (where clouds answer their metadata,
 * credentials included), in IPv4 and IPv6. An IPv4-mapped IPv6 address matches its IPv4 range.
 */
const PRIVATE_NETWORKS = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, "ipv6");
}

/**
 * Whether the URL's host is the service's own machine or network, written as an address (in
 * any form the URL parser accepts: `http://2130706433` is 127.0.0.1) or as `localhost`. A name
 * that merely resolves to such an address passes: catching it would take checking the address
 * of every connection, since what a name resolves to can change after it was checked.
 */
export function isPrivateHost(url: string): boolean {
  const host = new URL(url).hostname
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "")
    .toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const family = isIP(host);
  return family !== 0 && PRIVATE_NETWORKS.check(host, family === 4 ? "ipv4" : "ipv6");
}
