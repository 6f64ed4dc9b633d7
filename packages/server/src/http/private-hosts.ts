import { BlockList, isIP } from "node:net";
import { AppError } from "./app-error.js";

/**
 * Addresses of the network the service runs in rather than of the internet: unspecified,
 * loopback, private, carrier-grade NAT, benchmarking, reserved and link-local (where clouds answer their metadata,
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
  ["192.0.0.0", 24],
  ["198.18.0.0", 15],
  ["240.0.0.0", 4],
] as const) {
  PRIVATE_NETWORKS.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  // Translations of IPv4 addresses (NAT64, 6to4) could name the private ones.
  ["64:ff9b::", 96],
  ["2002::", 16],
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

/**
 * Refuses a URL the service would send requests to (a platform, a webhook endpoint) when it
 * names the service's own machine or network: someone who may only administer a store must not
 * aim the service at hosts the internet cannot reach, and read how they answer. Operators allow
 * it with ALLOW_PRIVATE_URLS (a shop on the same network, a local webhook receiver).
 */
export function refusePrivateHost(url: string, pointer = "/url"): void {
  if (!isPrivateHost(url)) return;
  const message = "must not be a loopback, private or link-local address, or localhost";
  throw new AppError("validation-failed", `body${pointer}: ${message}`, [
    { location: "body", pointer, message, code: "private_host" },
  ]);
}
