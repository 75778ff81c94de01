import { stat } from 'node:fs/promises';
import type { SvcClient } from '@svc/sdk';
import { uploadFile } from '@svc/sdk/node';
import type { CommandContext } from '../command-context.ts';
import { UsageError } from '../errors.ts';
import { uploadBars } from './upload-bars.ts';

/**
 * Uploads local files to the media library, one after the other, with a progress bar per file.
 * Every path is checked before the first byte is sent, so a typo costs no upload.
 */
export async function uploadFiles(ctx: CommandContext, client: SvcClient, files: string[]) {
  const sizes = await Promise.all(files.map((file) => sizeOf(file)));
  const bars = uploadBars(ctx.io.stderr, ctx.progress, ctx.io.env.SVC_PROGRESS === 'always');
  const uploaded = [];
  try {
    for (const [index, file] of files.entries()) {
      const bar = bars.add(file, sizes[index]!);
      uploaded.push(
        await uploadFile(client, file, {
          onProgress: ({ loaded, total }: { loaded: number; total?: number }) => bar.update(loaded, total),
        }),
      );
    }
  } finally {
    bars.stop();
  }
  return uploaded;
}

async function sizeOf(file: string): Promise<number> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new UsageError(`${file} is not a file`);
    return info.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
}
