import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { assertSafeKey, SAFE_KEY, type ByteRange, type MediaStorage, type StoredObject } from './storage.ts';

/**
 * A directory: `{key}` holds the bytes, `{key}.meta.json` the sniffed content type. Writes land under
 * a temporary name and are renamed, so a reader never sees half a file.
 */
export function createLocalStorage(root: string): MediaStorage {
  const dir = path.resolve(root);
  const file = (key: string) => {
    assertSafeKey(key);
    return path.join(dir, key);
  };
  return {
    kind: 'local',
    async putFile(key, source, contentType) {
      await mkdir(dir, { recursive: true });
      const target = file(key);
      const partial = `${target}.partial`;
      try {
        await rename(source, partial);
      } catch {
        // Another filesystem: copy instead.
        await copyFile(source, partial);
      }
      await writeFile(`${target}.meta.json`, JSON.stringify({ contentType }));
      await rename(partial, target);
    },
    async stat(key) {
      try {
        const [info, meta] = await Promise.all([stat(file(key)), readFile(`${file(key)}.meta.json`, 'utf8')]);
        return { size: info.size, contentType: (JSON.parse(meta) as StoredObject).contentType };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async read(key, range?: ByteRange): Promise<Readable> {
      return createReadStream(file(key), range === undefined ? {} : { start: range.start, end: range.end });
    },
    async delete(key) {
      await rm(file(key), { force: true });
      await rm(`${file(key)}.meta.json`, { force: true });
    },
    async *list() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const key of names.filter((name) => SAFE_KEY.test(name))) {
        try {
          yield { key, modifiedAt: (await stat(path.join(dir, key))).mtime };
        } catch (error) {
          // Deleted since the listing.
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
    },
  };
}
