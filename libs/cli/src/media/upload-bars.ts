import path from 'node:path';
import { MultiBar, type SingleBar } from 'cli-progress';
import type { Writable } from 'node:stream';

export interface UploadBar {
  update(sentBytes: number, totalBytes?: number): void;
}

export interface UploadBars {
  add(file: string, totalBytes: number): UploadBar;
  /** Draws the final state and releases the terminal (and the redraw timer); safe to call twice. */
  stop(): void;
}

const SILENT: UploadBars = { add: () => ({ update: () => undefined }), stop: () => undefined };

/**
 * One progress bar per file on stderr (stdout keeps the result). Off the terminal nothing is drawn,
 * unless `force` (SVC_PROGRESS=always), when each redraw is printed as plain lines and the last one
 * shows every file at 100%.
 */
export function uploadBars(stream: Writable & { isTTY?: boolean }, enabled: boolean, force: boolean): UploadBars {
  if (!enabled) return SILENT;
  const bars = new MultiBar({
    stream: stream as NodeJS.WriteStream,
    format: '{file} [{bar}] {percentage}% | {sent}/{size}',
    noTTYOutput: force,
    notTTYSchedule: 500,
    hideCursor: stream.isTTY === true,
    autopadding: true,
    gracefulExit: false,
    // ASCII, so a bar reads the same in any terminal and in a log.
    barCompleteChar: '=',
    barIncompleteChar: '-',
  });
  let stopped = false;
  return {
    add: (file, totalBytes) => {
      const bar: SingleBar = bars.create(totalBytes, 0, payload(file, 0, totalBytes));
      return {
        update: (sent, total = totalBytes) => {
          if (total !== bar.getTotal()) bar.setTotal(total);
          // A multipart form is a little larger than its file: the bar counts the file's bytes.
          const value = Math.min(sent, total);
          bar.update(value, payload(file, value, total));
        },
      };
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      bars.stop();
    },
  };
}

function payload(file: string, sent: number, total: number) {
  return { file: path.basename(file), sent: bytes(sent), size: bytes(total) };
}

function bytes(count: number): string {
  if (count < 1024) return `${count} B`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KB`;
  return `${(count / 1024 / 1024).toFixed(1)} MB`;
}
