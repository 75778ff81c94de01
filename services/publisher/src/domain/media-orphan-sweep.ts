import type { Logger } from '@svc/logger';
import type { ListedObject, MediaStorage } from '@svc/media';
import type { MediaRepository } from '../data/media.repository.ts';

export interface MediaOrphanSweepOptions {
  storage: MediaStorage;
  media: MediaRepository;
  logger: Logger;
  /** Objects younger than this are left alone: their ingest may still be recording them. */
  graceMs: number;
  intervalMs: number;
}

/** Keys looked up in one query. */
const BATCH = 500;

const mediaIdOf = (key: string) => key.replace(/\.jpg$/, '');

/**
 * Deletes stored objects that no record names, once older than the grace period: a gateway that
 * died between storing a file and recording it, or a record call that went unanswered and never
 * arrived, leaves bytes nobody can list, delete or be charged for. Deleting an object twice is
 * harmless, so several processes sweeping at once only repeat work.
 */
export class MediaOrphanSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly options: MediaOrphanSweepOptions) {}

  start(): void {
    if (this.options.intervalMs === 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .catch((error: unknown) => this.options.logger.error({ err: error }, 'media orphan sweep failed; next sweep'))
        .finally(() => {
          this.running = undefined;
        });
    }, this.options.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass over the whole store; returns the keys deleted. */
  async sweep(now = Date.now()): Promise<string[]> {
    const deleted: string[] = [];
    let batch: ListedObject[] = [];
    const flush = async () => {
      const recorded = await this.options.media.existingIds(batch.map((object) => mediaIdOf(object.key)));
      for (const object of batch.filter((candidate) => !recorded.has(mediaIdOf(candidate.key)))) {
        await this.options.storage.delete(object.key);
        deleted.push(object.key);
      }
      batch = [];
    };
    for await (const object of this.options.storage.list()) {
      if (now - object.modifiedAt.getTime() < this.options.graceMs) continue;
      batch.push(object);
      if (batch.length >= BATCH) await flush();
    }
    if (batch.length > 0) await flush();
    if (deleted.length > 0)
      this.options.logger.warn(
        { count: deleted.length },
        'stored media without a record deleted (orphans of failed ingests)',
      );
    return deleted;
  }
}
