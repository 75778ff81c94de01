import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assertFfprobeInstalled } from './probe.ts';

describe('assertFfprobeInstalled', () => {
  it('passes where ffprobe is on the PATH (scripts/test installs it)', async () => {
    await expect(assertFfprobeInstalled()).resolves.toBeUndefined();
  });

  it('refuses with what to install when ffprobe is not on the PATH', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'no-ffprobe-'));
    try {
      await expect(assertFfprobeInstalled({ PATH: empty })).rejects.toThrow(
        /ffprobe is not installed: install the Debian package ffmpeg/,
      );
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
