import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { ToolError } from "../tools/toolError.js";

/**
 * Addresses a page fetched for the model must not reach: the machine itself, the local network,
 * link-local ones (cloud metadata at 169.254.169.254) and the reserved ranges. IPv4 addresses
 * written as IPv6 (`::ffff:127.0.0.1`) are checked against the IPv4 ranges.
 */
const PRIVATE_RANGES: ReadonlyArray<[string, number, "ipv4" | "ipv6"]> = [
  ["0.0.0.0", 8, "ipv4"],
  ["10.0.0.0", 8, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["127.0.0.0", 8, "ipv4"],
  ["169.254.0.0", 16, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.0.0.0", 24, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["198.18.0.0", 15, "ipv4"],
  ["224.0.0.0", 4, "ipv4"],
  ["240.0.0.0", 4, "ipv4"],
  ["::", 128, "ipv6"],
  ["::1", 128, "ipv6"],
  ["fc00::", 7, "ipv6"],
  ["fe80::", 10, "ipv6"],
  ["ff00::", 8, "ipv6"],
];

const privateRanges = new BlockList();
for (const [network, prefix, family] of PRIVATE_RANGES) privateRanges.addSubnet(network, prefix, family);

const familyOf = (address: string): "ipv4" | "ipv6" => (isIP(address) === 6 ? "ipv6" : "ipv4");

/** `[::1]` as URLs write it, `::1` as addresses are compared. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
}

/**
 * Which private hosts may be reached anyway (`web.allow_private`): names as written in URLs,
 * single addresses, and CIDR ranges.
 */
export class AddressGuard {
  private readonly hosts = new Set<string>();
  private readonly allowed = new BlockList();

  constructor(allowPrivate: readonly string[]) {
    for (const entry of allowPrivate) {
      const [network = "", prefix] = entry.split("/");
      const family = isIP(network);
      if (family && prefix !== undefined) this.allowed.addSubnet(network, Number(prefix), familyOf(network));
      else if (family) this.allowed.addAddress(network, familyOf(network));
      else this.hosts.add(bareHost(entry));
    }
  }

  /** Why `address` (what `hostname` resolved to) may not be reached, or undefined when it may. */
  refusal(hostname: string, address: string): string | undefined {
    const family = familyOf(address);
    if (!privateRanges.check(address, family)) return undefined;
    if (this.hosts.has(bareHost(hostname)) || this.allowed.check(address, family)) return undefined;
    const resolved = bareHost(hostname) === address ? address : `${hostname} (${address})`;
    return (
      `Refused: ${resolved} is a loopback, link-local or private address, which fetch_webpage does not reach ` +
      "so that pages cannot lead it into the local network. If the user wants it reached, they can add it to web.allow_private in the config."
    );
  }

  /** Refuses a URL whose host is written as an address (no lookup happens for those). */
  checkLiteral(hostname: string): void {
    const host = bareHost(hostname);
    if (!isIP(host)) return;
    const refusal = this.refusal(host, host);
    if (refusal) throw new ToolError(refusal);
  }

  /**
   * A DNS lookup for the HTTP client that refuses private answers: the connection goes to the
   * very address checked, so a name cannot resolve one way for the check and another for the
   * connection.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      for (const { address } of addresses) {
        const refusal = this.refusal(hostname, address);
        if (refusal) return callback(new ToolError(refusal), "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address`), "", 0);
      callback(null, first.address, first.family);
    });
  };
}
