/**
 * What an attempt's error says to the tenant, who can point an endpoint at any name: never whether a
 * host name resolves, nor the address it resolved to. A blocked address, a name that does not resolve
 * and any other failure before a connection exists read the same; socket errors are named by their
 * code only (node's messages carry the address, e.g. `connect ECONNREFUSED 10.0.0.7:80`).
 */
export const ADDRESS_REFUSED = "The receiver's address is not allowed or could not be resolved.";

const CONNECTION_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'ECONNREFUSED: the receiver refused the connection.',
  ECONNRESET: 'ECONNRESET: the receiver closed the connection before answering.',
  EPIPE: 'EPIPE: the receiver closed the connection while the request was sent.',
  ECONNABORTED: 'ECONNABORTED: the connection was aborted.',
  ETIMEDOUT: 'ETIMEDOUT: the connection to the receiver timed out.',
  EHOSTUNREACH: 'EHOSTUNREACH: the receiver cannot be reached.',
  ENETUNREACH: 'ENETUNREACH: the receiver cannot be reached.',
};

/** TLS failures keep their code (a certificate problem the receiver can fix), never the message. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;
const RESOLVER_SYSCALL = /^(getaddrinfo|query|resolve|lookup)/;
/** The receiver answered something that is not HTTP. */
const PARSE_CODE = /^HPE_/;

export function describeAttemptError(error: unknown): string {
  // Duck-typed: errors made by node's own modules are not `instanceof Error` in every realm (jest's).
  const { code, syscall } =
    typeof error === 'object' && error !== null ? (error as { code?: unknown; syscall?: unknown }) : {};
  if (typeof code !== 'string') return ADDRESS_REFUSED;
  // A resolver's failure (getaddrinfo, or c-ares `queryA`...), whatever its code (ECONNREFUSED included).
  if (typeof syscall === 'string' && RESOLVER_SYSCALL.test(syscall)) return ADDRESS_REFUSED;
  const known = CONNECTION_ERRORS[code];
  if (known !== undefined) return known;
  if (TLS_CODE.test(code)) return `${code}: the TLS handshake with the receiver failed.`;
  if (PARSE_CODE.test(code)) return `${code}: the receiver's answer is not valid HTTP.`;
  // ERR_SSRF_BLOCKED, ENOTFOUND, EAI_AGAIN and every resolver failure: one sentence for all.
  return ADDRESS_REFUSED;
}
