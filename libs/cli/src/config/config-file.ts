import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors.ts';

/** What `svc login` stores. Every field is optional: environment variables may supply the rest. */
export interface StoredConfig {
  base_url?: string;
  api_key?: string;
  /** A dashboard JWT, for the commands that need one (webhooks, OAuth connect). */
  token?: string;
  token_expires_at?: string;
  /** Set by `svc login --dev`: the organization to ask a fresh development token for once `token` expires. */
  dev_org_id?: string;
}

/** `$XDG_CONFIG_HOME/svc/config.json`, else `~/.config/svc/config.json` (the XDG default). */
export function configPath(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'svc', 'config.json');
}

export async function readConfig(file: string): Promise<StoredConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as StoredConfig;
  } catch {
    throw new UsageError(`${file} is not valid JSON: fix or delete it, then run svc login`);
  }
}

/**
 * Writes the config readable by its owner only: it holds an API key. The directory is made 0700 and
 * the file 0600 before the secret is written (a temporary file renamed over the old one, so a crash
 * never leaves half a file), and both modes are set again in case they existed with looser ones.
 */
export async function writeConfig(file: string, config: StoredConfig): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}
