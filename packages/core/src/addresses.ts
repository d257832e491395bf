import { isIPv4, isIPv6 } from "node:net";

/** Why an address may not be a destination; "public" is the only kind always allowed. */
export type AddressKind =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "shared"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "documentation"
  | "nat64"
  | "6to4"
  | "teredo"
  | "metadata"
  | "metadata-range"
  | "ipv4-translated";

interface Range {
  bytes: number[];
  prefix: number;
  kind: AddressKind;
}

function v4(cidr: string, kind: AddressKind): Range {
  const [address, prefix] = cidr.split("/");
  return { bytes: address!.split(".").map(Number), prefix: Number(prefix), kind };
}

function v6(cidr: string, kind: AddressKind): Range {
  const [address, prefix] = cidr.split("/");
  return { bytes: ipv6Bytes(address!)!, prefix: Number(prefix), kind };
}

// Most specific first: the first match names the kind.
const IPV4_RANGES: Range[] = [
  // Cloud instance metadata and platform services: credentials and host control, never a destination.
  v4("169.254.169.254/32", "metadata"), // AWS, GCP, Azure IMDS, OCI, DigitalOcean, OpenStack
  v4("169.254.170.2/32", "metadata"), // AWS ECS task metadata and credentials
  v4("169.254.0.23/32", "metadata"), // Tencent Cloud
  v4("100.100.100.200/32", "metadata"), // Alibaba Cloud
  v4("168.63.129.16/32", "metadata"), // Azure WireServer
  v4("255.255.255.255/32", "broadcast"),
  v4("0.0.0.0/8", "unspecified"),
  v4("10.0.0.0/8", "private"),
  v4("100.64.0.0/10", "shared"),
  v4("127.0.0.0/8", "loopback"),
  // The rest of IPv4 link-local stays closed too: providers put more services there over time.
  v4("169.254.0.0/16", "metadata-range"),
  v4("172.16.0.0/12", "private"),
  v4("192.0.0.0/24", "reserved"),
  v4("192.0.2.0/24", "documentation"),
  v4("192.88.99.0/24", "reserved"),
  v4("192.168.0.0/16", "private"),
  v4("198.18.0.0/15", "reserved"),
  v4("198.51.100.0/24", "documentation"),
  v4("203.0.113.0/24", "documentation"),
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved"),
];

const IPV6_RANGES: Range[] = [
  v6("fd00:ec2::/64", "metadata"), // AWS Nitro: IMDS fd00:ec2::254, DNS, NTP and what comes next
  // SIIT (RFC 2765) IPv4-translated addresses: a translator would carry them to any IPv4 address.
  v6("::ffff:0:0:0/96", "ipv4-translated"),
  v6("::/128", "unspecified"),
  v6("::1/128", "loopback"),
  v6("64:ff9b::/96", "nat64"),
  v6("64:ff9b:1::/48", "nat64"),
  v6("100::/64", "reserved"),
  v6("2001:db8::/32", "documentation"),
  v6("3fff::/20", "documentation"),
  v6("2001::/32", "teredo"),
  v6("2001::/23", "reserved"),
  v6("2002::/16", "6to4"),
  v6("fc00::/7", "private"),
  v6("fe80::/10", "link-local"),
  v6("fec0::/10", "reserved"),
  v6("ff00::/8", "multicast"),
  v6("::/96", "reserved"), // IPv4-compatible, deprecated
];

/** The 16 bytes of an IPv6 address (with "::" and an embedded dotted quad), or undefined. */
export function ipv6Bytes(address: string): number[] | undefined {
  let text = address.replace(/^\[|\]$/g, "").split("%")[0]!;
  if (!isIPv6(text)) return undefined;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...tailGroups];
  if (groups.length !== 8) return undefined;
  return groups.flatMap((group) => {
    const value = Number.parseInt(group || "0", 16);
    return [value >> 8, value & 0xff];
  });
}

function matches(bytes: number[], range: Range): boolean {
  let bits = range.prefix;
  for (let i = 0; bits > 0; i += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i]! & mask) !== (range.bytes[i]! & mask)) return false;
  }
  return true;
}

/**
 * Classifies an IP address. IPv4-mapped IPv6 (::ffff:a.b.c.d) is unwrapped first and
 * classified as its IPv4 address (a dual-stack socket reaches exactly that host), so
 * ::ffff:127.0.0.1 is loopback and ::ffff:8.8.8.8 public; brackets and zone ids are
 * ignored. Not an IP: undefined.
 */
export function classifyAddress(address: string): AddressKind | undefined {
  const bare = address.replace(/^\[|\]$/g, "");
  if (isIPv4(bare)) {
    const bytes = bare.split(".").map(Number);
    return IPV4_RANGES.find((range) => matches(bytes, range))?.kind ?? "public";
  }
  const bytes = ipv6Bytes(bare);
  if (!bytes) return undefined;
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return classifyAddress(bytes.slice(12).join("."));
  return IPV6_RANGES.find((range) => matches(bytes, range))?.kind ?? "public";
}

/**
 * Kinds that ALLOW_PRIVATE_DESTINATIONS opens (local development, private networks). Every
 * other kind stays closed whatever the setting: cloud metadata and all of 169.254.0.0/16,
 * IPv4-translated, unspecified, multicast, reserved and the tunnelling prefixes.
 * "link-local" is IPv6 fe80::/10 only.
 */
const OPENED_BY_OPT_IN = new Set<AddressKind>(["loopback", "private", "link-local", "shared"]);

export interface AddressPolicy {
  allowPrivate: boolean;
}

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

const REASONS: Record<Exclude<AddressKind, "public">, string> = {
  loopback: "loopback address",
  private: "private network address",
  "link-local": "IPv6 link-local address",
  shared: "shared (CGNAT) address",
  unspecified: "unspecified address",
  multicast: "multicast address",
  broadcast: "broadcast address",
  reserved: "reserved address",
  documentation: "documentation address",
  nat64: "NAT64 address",
  "6to4": "6to4 address",
  teredo: "Teredo address",
  metadata: "cloud metadata address",
  "metadata-range": "IPv4 link-local address (cloud metadata range)",
  "ipv4-translated": "IPv4-translated (SIIT) address",
};

/**
 * Whether a destination may be reached at this address. Public unicast only, unless the
 * operator opened private ranges; cloud metadata addresses stay closed even then. The
 * reason names the kind of address, never the address: when a name resolved to it, the
 * user must not learn what an internal name points at.
 */
export function checkAddress(address: string, policy: AddressPolicy): AddressVerdict {
  const kind = classifyAddress(address);
  if (kind === undefined) return { allowed: false, reason: "blocked: not an IP address" };
  if (kind === "public") return { allowed: true };
  if (policy.allowPrivate && OPENED_BY_OPT_IN.has(kind)) return { allowed: true };
  return { allowed: false, reason: `blocked: ${REASONS[kind]}` };
}

/**
 * A refusal's reason as a user reads it: when ALLOW_PRIVATE_DESTINATIONS would open the
 * address (loopback, private, link-local, CGNAT), it says so; metadata and the rest stay shut.
 */
export function withPrivateDestinationHint(reason: string): string {
  const opened = [...OPENED_BY_OPT_IN].some((kind) => reason.includes(`blocked: ${REASONS[kind as Exclude<AddressKind, "public">]}`));
  return opened ? `${reason}; a self-hosted server can allow private destinations with ALLOW_PRIVATE_DESTINATIONS=true` : reason;
}

/** Names that always mean this machine, whatever DNS says. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** A host that is this machine: localhost, 127.0.0.0/8, ::1 (or ::ffff:127.x), with or without IPv6 brackets. */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, "$1");
  return isLocalhostName(bare) || classifyAddress(bare) === "loopback";
}
