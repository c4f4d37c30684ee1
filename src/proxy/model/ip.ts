/**
 * IP and CIDR helpers with Go `net` semantics, because kube-proxy prints addresses through
 * `net.IP.String()` / `net.IPNet.String()` and compares them with `ParseIPSloppy` rules:
 *
 *   - IPv4 accepts leading zeros ("010.000.000.001" → "10.0.0.1", the "sloppy" parser);
 *   - IPv6 prints per RFC 5952: lower-case hex, the longest run (≥ 2) of zero groups
 *     compressed to "::" (first run on ties), and IPv4-mapped addresses print as IPv4;
 *   - a CIDR prints its masked network address ("10.1.2.3/8" → "10.0.0.0/8").
 *
 * Addresses are held as 16-byte arrays (IPv4 in the ::ffff:0:0/96 mapped form, as Go does).
 */
import { intToIpv4 } from '../../api/allocators.js';

export type IPFamily = 'IPv4' | 'IPv6';

/** Parses an IPv4 or IPv6 literal (Go ParseIPSloppy); returns null when it is not one. */
export function parseIP(s: string): Uint8Array | null {
  if (s.includes(':')) return parseIPv6(s);
  const v4 = parseIPv4(s);
  if (!v4) return null;
  const out = new Uint8Array(16);
  out[10] = 0xff;
  out[11] = 0xff;
  out.set(v4, 12);
  return out;
}

function parseIPv4(s: string): Uint8Array | null {
  // four dot-separated parts of 1–3 decimal digits (leading zeros allowed), each ≤ 255; a loop
  // over the characters, not split + regex: every endpoint address of every slice is checked
  const out = new Uint8Array(4);
  let part = 0;
  let digits = 0;
  let at = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || at === 3) return null;
      out[at++] = part;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (++digits > 3) return null;
      part = part * 10 + (c - 48);
      if (part > 255) return null;
    } else return null;
  }
  if (at !== 3 || digits === 0) return null;
  out[3] = part;
  return out;
}

function parseIPv6(s: string): Uint8Array | null {
  if (s.length < 2) return null;
  let body = s;
  let tail4: Uint8Array | null = null;
  const lastColon = body.lastIndexOf(':');
  if (body.indexOf('.', lastColon) >= 0) {
    tail4 = parseIPv4(body.slice(lastColon + 1));
    if (!tail4) return null;
    body = body.slice(0, lastColon + 1) + '0:0';
  }
  const dbl = body.indexOf('::');
  if (dbl >= 0 && body.indexOf('::', dbl + 1) >= 0) return null;
  const groups: number[] = [];
  const parseGroups = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  if (dbl >= 0) {
    const head = parseGroups(body.slice(0, dbl));
    const tail = parseGroups(body.slice(dbl + 2));
    if (!head || !tail || head.length + tail.length > 7) return null;
    groups.push(...head, ...new Array(8 - head.length - tail.length).fill(0), ...tail);
  } else {
    const all = parseGroups(body);
    if (!all || all.length !== 8) return null;
    groups.push(...all);
  }
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    out[2 * i] = groups[i] >> 8;
    out[2 * i + 1] = groups[i] & 0xff;
  }
  if (tail4) out.set(tail4, 12);
  return out;
}

/** True when the 16-byte address is IPv4 (Go: `ip.To4() != nil`). */
export function isIPv4Bytes(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** Go `net.IP.String()` of a 16-byte address. */
export function formatIP(b: Uint8Array): string {
  if (isIPv4Bytes(b)) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  const g: number[] = [];
  for (let i = 0; i < 8; i++) g.push((b[2 * i] << 8) | b[2 * i + 1]);
  let bestStart = -1,
    bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      out += '::';
      i += bestLen - 1;
      continue;
    }
    if (out !== '' && !out.endsWith(':')) out += ':';
    out += g[i].toString(16);
  }
  return out;
}

/** Canonical text of an IP literal, or null when `s` is not an IP. */
export function canonicalIP(s: string): string | null {
  const b = parseIP(s.trim());
  return b ? formatIP(b) : null;
}

/**
 * The value of `s` when it is an IPv4 address in canonical form ("10.0.0.1": four decimal
 * parts 0-255 without leading zeros, the text formatIPv4 gives back), else -1. Lets the
 * endpoint columns hold most addresses as a uint32.
 */
export function canonicalIPv4Value(s: string): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && part === 0) return -1; // leading zero
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else return -1;
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + part;
}

/** Dotted quad of a 32-bit unsigned value (the service allocators' formatter). */
export const formatIPv4: (n: number) => string = intToIpv4;

/** The family of an IP literal, or null when it is not an IP. */
export function ipFamilyOf(s: string): IPFamily | null {
  // the common case, a canonical dotted quad, without building the 16 bytes
  if (canonicalIPv4Value(s) >= 0) return 'IPv4';
  const b = parseIP(s.trim());
  if (!b) return null;
  return isIPv4Bytes(b) ? 'IPv4' : 'IPv6';
}

/** A parsed CIDR: masked network address, prefix length, family. */
export interface Cidr {
  readonly family: IPFamily;
  /** 16-byte masked network address */
  readonly network: Uint8Array;
  /** prefix length in the family's own bit width (0–32 or 0–128) */
  readonly prefix: number;
  /** Go `IPNet.String()`, e.g. "10.0.0.0/8" */
  readonly text: string;
}

/** Parses "addr/len" (Go ParseCIDRSloppy); returns null when invalid. */
export function parseCidr(s: string): Cidr | null {
  const t = s.trim();
  const slash = t.indexOf('/');
  if (slash < 0) return null;
  const addr = parseIP(t.slice(0, slash));
  const lenText = t.slice(slash + 1);
  if (!addr || !/^[0-9]{1,3}$/.test(lenText)) return null;
  const family: IPFamily = t.slice(0, slash).includes(':') ? 'IPv6' : 'IPv4';
  const prefix = Number(lenText);
  if (prefix > (family === 'IPv4' ? 32 : 128)) return null;
  const bits = family === 'IPv4' ? prefix + 96 : prefix;
  const network = maskBytes(addr, bits);
  const base =
    family === 'IPv4'
      ? `${network[12]}.${network[13]}.${network[14]}.${network[15]}`
      : formatIPv6Raw(network);
  return { family, network, prefix, text: `${base}/${prefix}` };
}

function formatIPv6Raw(b: Uint8Array): string {
  // An IPv6 CIDR such as ::ffff:0:0/96 must not print as IPv4; Go prints IPNet by its mask length.
  if (isIPv4Bytes(b)) {
    return `::ffff:${((b[12] << 8) | b[13]).toString(16)}:${((b[14] << 8) | b[15]).toString(16)}`;
  }
  return formatIP(b);
}

function maskBytes(addr: Uint8Array, bits: number): Uint8Array {
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    out[i] = addr[i] & ((0xff00 >> keep) & 0xff);
  }
  return out;
}

/** Go `IPNet.Contains(ip)`: false across families. */
export function cidrContains(c: Cidr, ip: string): boolean {
  const b = parseIP(ip);
  if (!b) return false;
  if ((c.family === 'IPv4') !== isIPv4Bytes(b)) return false;
  const bits = c.family === 'IPv4' ? c.prefix + 96 : c.prefix;
  const m = maskBytes(b, bits);
  for (let i = 0; i < 16; i++) if (m[i] !== c.network[i]) return false;
  return true;
}

/** Go `net.JoinHostPort`: brackets IPv6 hosts. */
export function joinHostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}
