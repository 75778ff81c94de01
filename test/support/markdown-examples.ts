import { readFileSync } from 'node:fs';

/** One fenced code block of a Markdown document marked `runnable`, e.g. a block opened by ```ts runnable. */
export interface MarkdownExample {
  /** The fence's language (`ts`, `sh`, ...). */
  lang: string;
  code: string;
  /** 1-based line of the opening fence, for failure messages. */
  line: number;
}

const FENCE = /^(```+)\s*(\S+)([^\n]*)$/;

/**
 * The runnable examples of a Markdown file, in order: documentation examples are executed by tests,
 * so an example that rots fails CI. Only fences whose info string contains the word `runnable` count
 * (GitHub renders the first word as the language and ignores the rest).
 */
export function markdownExamples(file: string, lang?: string): MarkdownExample[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const examples: MarkdownExample[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = FENCE.exec(lines[index]!);
    if (open === null) continue;
    const [, fence, language, rest] = open as unknown as [string, string, string, string];
    const end = lines.findIndex((text, at) => at > index && text.trimEnd() === fence);
    if (end === -1) throw new Error(`${file}:${index + 1}: code fence is never closed`);
    if (/\brunnable\b/.test(rest) && (lang === undefined || language === lang)) {
      examples.push({ lang: language, code: lines.slice(index + 1, end).join('\n'), line: index + 1 });
    }
    index = end;
  }
  return examples;
}
