const RESERVED = /[\\|{}@[\]()<>#*_~]/g;

/**
 * Escapes text for LinkedIn's little text format: an unescaped reserved character can cut the post
 * short (networks.md §4.2, §7.5). Mentions are not generated, so everything is escaped.
 */
export function escapeLittleText(text: string): string {
  return text.replace(RESERVED, (char) => `\\${char}`);
}
