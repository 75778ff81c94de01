import type { CliIo } from '../io.ts';

/**
 * Where a command's results go. With `--json` every result is one JSON document on stdout (scripts
 * parse it) and notes are not printed; without it, results are human text. Notes (hints, what is
 * being waited for) and progress go to stderr either way, so stdout holds only the result.
 */
export interface Output {
  readonly json: boolean;
  /** The command's result: `value` as JSON with `--json`, else the text `human()` renders. */
  result(value: unknown, human: () => string): void;
  /** A line of human text on stdout (nothing with `--json`). */
  line(text: string): void;
  /** A note on stderr for people (nothing with `--json`). */
  note(text: string): void;
}

export function createOutput(io: CliIo, json: boolean): Output {
  const write = (stream: NodeJS.WritableStream, text: string) => stream.write(text.endsWith('\n') ? text : `${text}\n`);
  return {
    json,
    result: (value, human) => {
      if (json) write(io.stdout, JSON.stringify(value, null, 2));
      else {
        const text = human();
        if (text !== '') write(io.stdout, text);
      }
    },
    line: (text) => {
      if (!json) write(io.stdout, text);
    },
    note: (text) => {
      if (!json) write(io.stderr, text);
    },
  };
}
