import { mkdtemp, readFile, rm, stat, writeFile, mkdir, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors.ts';
import { configPath, readConfig, writeConfig } from './config-file.ts';
import { resolveCredentials } from './credentials.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the config file', () => {
  it('lives under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x', HOME: '/h' })).toBe('/x/svc/config.json');
    expect(configPath({ HOME: '/h' })).toBe('/h/.config/svc/config.json');
  });

  it('is written 0600 in a 0700 directory, even over looser existing modes', async () => {
    const file = path.join(dir, 'svc', 'config.json');
    await mkdir(path.dirname(file), { mode: 0o755 });
    await writeFile(file, '{}', { mode: 0o644 });
    await chmod(file, 0o644);
    await writeConfig(file, { api_key: 'svc_secret' });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ api_key: 'svc_secret' });
    expect(await readConfig(file)).toEqual({ api_key: 'svc_secret' });
  });

  it('reads as empty when missing, and refuses a broken one with a usage error', async () => {
    expect(await readConfig(path.join(dir, 'none.json'))).toEqual({});
    const broken = path.join(dir, 'broken.json');
    await writeFile(broken, '{nope');
    await expect(readConfig(broken)).rejects.toThrow(UsageError);
  });
});

describe('credentials', () => {
  const now = Date.parse('2026-06-01T00:00:00Z');
  const stored = {
    base_url: 'http://stored:8080',
    api_key: 'svc_stored',
    token: 'jwt',
    token_expires_at: '2026-06-01T00:10:00Z',
  };

  it('takes the environment over the stored login, field by field', () => {
    expect(resolveCredentials({ SVC_API_KEY: 'svc_env' }, stored, now)).toEqual({
      baseUrl: 'http://stored:8080',
      apiKey: 'svc_env',
      token: 'jwt',
      devOrgId: undefined,
    });
    expect(resolveCredentials({ SVC_BASE_URL: 'https://api.example.com/', SVC_TOKEN: 't2' }, {}, now)).toMatchObject({
      baseUrl: 'https://api.example.com',
      apiKey: undefined,
      token: 't2',
    });
  });

  it('drops a stored token about to expire', () => {
    expect(resolveCredentials({}, { ...stored, token_expires_at: '2026-06-01T00:00:10Z' }, now).token).toBeUndefined();
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => resolveCredentials({ SVC_BASE_URL: 'ftp://x' }, {}, now)).toThrow(UsageError);
    expect(() => resolveCredentials({ SVC_BASE_URL: 'nope' }, {}, now)).toThrow(UsageError);
  });
});
