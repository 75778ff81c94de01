import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

export interface HostResolverSettings {
  /**
   * DNS servers asked, as `ip` or `ip:port` (`[ipv6]:port`); empty or absent: the system's
   * (/etc/resolv.conf).
   */
  servers?: readonly string[];
  /** Longest a resolution of one host takes before it fails as unresolvable. */
  timeoutMs?: number;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Why a host did not resolve: no such name or no address (`ENOTFOUND`), or no answer in time (`ETIMEOUT`). */
export class HostResolveError extends Error {
  override name = 'HostResolveError';
  constructor(
    readonly code: 'ENOTFOUND' | 'ETIMEOUT',
    readonly hostname: string,
    message: string,
  ) {
    super(message);
  }
}

export const DEFAULT_DNS_TIMEOUT_MS = 2000;

/** RFC 6761: `localhost` and names under it are the loopback host, never asked of DNS. */
const isLocalhost = (host: string) => host === 'localhost' || host.endsWith('.localhost');
const LOOPBACK: readonly ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/**
 * Resolves user-supplied hosts through c-ares (`dns.promises.Resolver`), which does its work on the
 * event loop: `dns.lookup` runs getaddrinfo on libuv's thread pool (4 threads, shared with file I/O,
 * zlib and crypto), so a slow authoritative server of an attacker's domain held those threads and
 * stalled every tenant's file reads and lookups. A resolution takes at most `timeoutMs`.
 *
 * Only DNS is asked: /etc/hosts and nsswitch are not read (nor search domains applied), so a
 * user-supplied name resolves as it does on the public internet. IP literals are taken as they are,
 * and `localhost` names are the loopback addresses, as the system resolver has them.
 */
export class HostResolver {
  private readonly resolver: Resolver;
  readonly timeoutMs: number;

  constructor(settings: HostResolverSettings = {}) {
    this.timeoutMs = settings.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
    // Two tries, the second one waiting longer (c-ares backs off): a lost datagram is asked again
    // within the budget; the deadline below bounds the whole whatever c-ares does.
    this.resolver = new Resolver({ timeout: Math.max(1, Math.floor(this.timeoutMs / 3)), tries: 2 });
    if (settings.servers !== undefined && settings.servers.length > 0) this.resolver.setServers([...settings.servers]);
  }

  /** The host's addresses, IPv4 first; fails with a HostResolveError when it has none or no answer comes in time. */
  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    const host = hostname
      .replace(/^\[|\]$/g, '')
      .toLowerCase()
      .replace(/\.$/, '');
    const family = isIP(host);
    if (family !== 0) return [{ address: host, family: family as 4 | 6 }];
    if (isLocalhost(host)) return LOOPBACK.map((entry) => ({ ...entry }));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new HostResolveError('ETIMEOUT', host, `the host ${host} did not resolve within ${this.timeoutMs} ms`),
          ),
        this.timeoutMs,
      );
    });
    try {
      const [v4, v6] = await Promise.race([
        Promise.allSettled([this.resolver.resolve4(host), this.resolver.resolve6(host)]),
        deadline,
      ]);
      const addresses: ResolvedAddress[] = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
      ];
      if (addresses.length > 0) return addresses;
      const timedOut = [v4, v6].some(
        (result) => result.status === 'rejected' && (result.reason as { code?: string }).code === 'ETIMEOUT',
      );
      throw new HostResolveError(timedOut ? 'ETIMEOUT' : 'ENOTFOUND', host, `the host ${host} does not resolve`);
    } finally {
      clearTimeout(timer);
    }
  }
}

let processResolver = new HostResolver();

/**
 * Sets how this process resolves user-supplied hosts when a policy names no resolver of its own
 * (services call it once at start with DNS_SERVERS and DNS_TIMEOUT_MS).
 */
export function configureHostResolver(settings: HostResolverSettings): HostResolver {
  processResolver = new HostResolver(settings);
  return processResolver;
}

export const processHostResolver = (): HostResolver => processResolver;

/** DNS_SERVERS's comma-separated list as the resolver takes it. */
export const parseDnsServers = (list: string): string[] =>
  list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
