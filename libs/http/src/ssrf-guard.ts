import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { processHostResolver, type HostResolver } from './host-resolver.ts';

/**
 * SSRF policy for every URL a user gives us (docs/api-conventions.md, "URLs users give us"):
 * http(s) only, and never an address that is private, loopback, link-local or cloud metadata, at
 * connect time and after any redirect. `allowPrivate` (ALLOW_PRIVATE_URLS, dev and tests only)
 * admits private and loopback addresses; link-local and metadata addresses stay blocked always.
 */
export interface SsrfPolicy {
  allowPrivate: boolean;
  /** Resolves the URL's host (c-ares, bounded in time); absent: the process's (configureHostResolver). */
  resolver?: HostResolver;
}

const resolverOf = (policy: SsrfPolicy) => policy.resolver ?? processHostResolver();

/** Always refused, whatever the policy: link-local (cloud metadata lives there) and AWS's IPv6 metadata. */
const ALWAYS_DENIED = ['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128'].map((cidr) => ipaddr.parseCIDR(cidr));
/** IPv6 global unicast: the only IPv6 space a public server lives in. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** Private space, admitted only with `allowPrivate`. */
const PRIVATE_RANGES = new Set(['private', 'loopback', 'carrierGradeNat', 'uniqueLocal']);

/**
 * Allow-list, not deny-list: an address passes only if it is IPv4 unicast or IPv6 global unicast
 * (2000::/3) outside the ranges ipaddr.js names (6to4, Teredo, documentation, ...). Every IPv6 form
 * that carries an IPv4 address (IPv4-compatible `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4, Teredo) is refused outright: `[::a9fe:a9fe]` once reached 169.254.169.254
 * through a deny-list. Only IPv4-mapped `::ffff:a.b.c.d` (what dual-stack sockets report) is unwrapped
 * and judged as the IPv4 address it is.
 */
export function isBlockedAddress(address: string, policy: SsrfPolicy): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (ALWAYS_DENIED.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits))) return true;
  const range = parsed.range();
  if (PRIVATE_RANGES.has(range)) return !policy.allowPrivate;
  if (range !== 'unicast') return true;
  return parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6);
}

/**
 * `addresses`: what the host resolved to, every one of them vetted; connect to one of these (not to a
 * new resolution of the name), so the address checked is the address used.
 */
export type UrlCheck =
  | { ok: true; url: URL; addresses: string[] }
  | { ok: false; reason: 'invalid' | 'scheme' | 'unresolvable' | 'blocked'; message: string };

/**
 * Pre-flight check before accepting a URL (a 400 now beats a failure later). It does not replace the
 * connect-time check of `safeAgents`, which also covers DNS rebinding and redirects.
 */
export async function checkUrl(raw: string, policy: SsrfPolicy): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid', message: `${raw} is not a valid URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: 'scheme', message: `${raw} must use http or https` };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = (await resolverOf(policy).resolve(host)).map((entry) => entry.address);
  } catch (error) {
    const late = (error as { code?: string }).code === 'ETIMEOUT';
    return {
      ok: false,
      reason: 'unresolvable',
      message: `the host ${host} does not resolve${late ? ' (no answer in time)' : ''}`,
    };
  }
  if (addresses.length === 0)
    return { ok: false, reason: 'unresolvable', message: `the host ${host} does not resolve` };
  if (addresses.some((address) => isBlockedAddress(address, policy))) {
    return {
      ok: false,
      reason: 'blocked',
      message: `${raw} points to a private, loopback, link-local or metadata address`,
    };
  }
  return { ok: true, url, addresses };
}

export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  readonly code = 'ERR_SSRF_BLOCKED';
}

/** A lookup (through the policy's resolver) that fails for any answer the policy refuses, so the socket never connects there. */
function guardedLookup(policy: SsrfPolicy): LookupFunction {
  return (hostname, options, callback) => {
    const lookupOptions = options as LookupOptions;
    resolverOf(policy)
      .resolve(hostname)
      .then(
        (resolved) => {
          const family =
            lookupOptions.family === 4 || lookupOptions.family === 'IPv4'
              ? 4
              : lookupOptions.family === 6 || lookupOptions.family === 'IPv6'
                ? 6
                : 0;
          const list: LookupAddress[] = resolved.filter((entry) => family === 0 || entry.family === family);
          const refused = list.find((entry) => isBlockedAddress(entry.address, policy));
          if (refused !== undefined)
            return (callback as (e: Error) => void)(
              new BlockedAddressError(`Connecting to ${hostname} (${refused.address}) is not allowed.`),
            );
          if (list.length === 0)
            return (callback as (e: Error) => void)(
              Object.assign(new Error(`the host ${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }),
            );
          if (lookupOptions.all === true) return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
          const [first] = list;
          return (callback as (e: null, a: string, f: number) => void)(null, first!.address, first!.family);
        },
        (error: unknown) => (callback as (e: Error) => void)(error as Error),
      );
  };
}

function guard<A extends http.Agent>(
  AgentClass: new (options: http.AgentOptions) => A,
  policy: SsrfPolicy,
  options: http.AgentOptions,
): A {
  const agent = new AgentClass({ ...options, lookup: guardedLookup(policy) } as http.AgentOptions);
  const createConnection = (
    agent as unknown as { createConnection: (o: { host?: string }, cb?: unknown) => unknown }
  ).createConnection.bind(agent);
  // Node skips the lookup for IP literals, so those are checked here, before any socket opens.
  (agent as unknown as { createConnection: unknown }).createConnection = (
    connectOptions: { host?: string },
    callback?: unknown,
  ) => {
    const host = (connectOptions.host ?? '').replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && isBlockedAddress(host, policy))
      throw new BlockedAddressError(`Connecting to ${host} is not allowed.`);
    return createConnection(connectOptions, callback);
  };
  return agent;
}

/**
 * http/https agents that check the address each connection really goes to (after DNS, for every
 * redirect hop), so a hostname that re-resolves to an internal address is refused at connect time.
 */
export function safeAgents(policy: SsrfPolicy, agentOptions: http.AgentOptions = {}) {
  return {
    httpAgent: guard(http.Agent, policy, agentOptions),
    httpsAgent: guard(https.Agent, policy, agentOptions),
  };
}
