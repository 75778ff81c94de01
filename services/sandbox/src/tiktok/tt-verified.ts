/**
 * TikTok pulls media only from domains or URL prefixes the app verified. An origin covers its host;
 * a path prefix covers what lies below it. Undefined prefixes: the sandbox does not check.
 */
export function isVerified(raw: string, prefixes: readonly string[] | undefined): boolean {
  if (prefixes === undefined) return true;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return prefixes.some((text) => {
    let prefix: URL;
    try {
      prefix = new URL(text);
    } catch {
      return false;
    }
    if (prefix.protocol !== url.protocol || prefix.host !== url.host) return false;
    const path = prefix.pathname.endsWith('/') ? prefix.pathname : `${prefix.pathname}/`;
    return path === '/' || url.pathname.startsWith(path);
  });
}
