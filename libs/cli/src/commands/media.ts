import type { Command } from 'commander';
import { action } from '../command-context.ts';
import type { CliIo } from '../io.ts';
import { uploadFiles } from '../media/upload-files.ts';
import { columns } from '../output/columns.ts';

interface MediaRecord {
  media_id: string;
  public_url: string;
  kind: string;
  content_type: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  compatibility: Record<string, { ok: boolean; rule: string | null }>;
}

export function registerMedia(program: Command, io: CliIo): void {
  const media = program.command('media').description('the media library (files to attach to posts)');
  media
    .command('upload')
    .description('upload files to the media library, with a progress bar per file')
    .argument('<files...>', 'local image or video files')
    .action(
      action(io, async (ctx, [files]) => {
        const client = (await ctx.session()).api();
        const records = (await uploadFiles(ctx, client, files as string[])) as MediaRecord[];
        ctx.out.result(records, () => renderMedia(records));
      }),
    );
  media
    .command('list')
    .description('files in the media library, newest first')
    .action(
      action(io, async (ctx) => {
        const client = (await ctx.session()).api();
        const records: MediaRecord[] = [];
        for await (const record of client.media.list()) records.push(record as MediaRecord);
        ctx.out.result(records, () => (records.length === 0 ? 'The media library is empty.' : renderMedia(records)));
      }),
    );
}

/** Each file with its measures and the networks that would refuse it. */
function renderMedia(records: MediaRecord[]): string {
  return columns(
    ['MEDIA ID', 'KIND', 'SIZE', 'DIMENSIONS', 'REFUSED BY'],
    records.map((record) => [
      record.media_id,
      record.content_type,
      `${Math.ceil(record.size_bytes / 1024)} KB`,
      record.width === null ? null : `${record.width}x${record.height ?? '?'}`,
      Object.entries(record.compatibility)
        .filter(([, verdict]) => !verdict.ok)
        .map(([network, verdict]) => `${network} (${verdict.rule ?? '?'})`)
        .join(', ') || 'none',
    ]),
  );
}
