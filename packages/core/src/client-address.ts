import { isIP, isIPv4 } from "node:net";

/**
 * A client address as some proxy or the socket wrote it, reduced to the bare address: a port
 * ("203.0.113.9:51234", "[2001:db8::1]:443") and brackets are dropped, an IPv4-mapped IPv6
 * address becomes its IPv4 form. Null when what is left is not an IP address (node:net
 * isIP): whatever a header carries, a client never gets a key per port or per made-up text.
 */
export function parseClientAddress(entry: string | null | undefined): string | null {
  if (!entry) return null;
  let address = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^[^:]+:\d{1,5}$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  // A zone (fe80::1%eth0) names the proxy's interface, not the client.
  const zone = address.indexOf("%");
  if (zone !== -1) address = address.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  return isIP(address) === 0 ? null : address.toLowerCase();
}
