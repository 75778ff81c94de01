import { uniqueName } from '@svc/testing';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { cliHome, svc, type CliHome } from './cli-process.ts';

// The command tree, usage errors, exit statuses and error lines, against a gateway outside
// development mode (and the accounts service, for an API error of a real endpoint).
let system: SystemHarness;
let home: CliHome;
let env: Record<string, string>;

beforeAll(async () => {
  system = await startSystem({ services: ['accounts'] });
  home = await cliHome(system.env.MEDIA_PUBLIC_BASE_URL!);
  env = home.env;
}, 60_000);
afterAll(async () => {
  await system?.close();
  await home?.remove();
});

// Every command's own --help is checked in-process: libs/cli/src/program.test.ts.
describe('svc --help', () => {
  it('lists every command, and the exit statuses', async () => {
    const result = await svc(['--help'], env);
    expect(result.code).toBe(0);
    for (const command of [
      'login',
      'dev',
      'accounts',
      'post',
      'history',
      'job',
      'media',
      'webhooks',
      'analytics',
      'mcp',
    ])
      expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(result.stdout).toContain('Exit status: 0 success, 1 API error, 2 usage error, 3 network error.');
    expect((await svc([], env)).stdout).toBe(result.stdout);
  });
});

describe('bad input', () => {
  it.each([
    ['a missing required option', ['post', 'hello'], /required option '--to <targets>'/],
    [
      'an unknown network',
      ['accounts', 'connect', 'myspace'],
      /expected one of instagram, facebook, x, linkedin, tiktok/,
    ],
    ['an unknown command', ['pots'], /unknown command 'pots' \(Did you mean one of post, posts\?\)/],
    ['an unknown option', ['history', '--colour'], /unknown option '--colour'/],
    ['a bad number', ['history', '--limit', '0'], /expected a whole number/],
    ['a bad status', ['history', '--status', 'done'], /expected one of scheduled/],
    ['a time without a zone', ['post', 'hi', '--to', 'all', '--at', '2026-12-24T09:00'], /--at .* with a zone/],
    ['a missing argument', ['job'], /missing required argument 'id'/],
    ['a file that does not exist', ['media', 'upload', 'no-such-file.jpg'], /no such file/],
    [
      'options that do not go together',
      ['post', 'hi', '--to', 'x', '--validate', '--wait'],
      /--validate creates nothing/,
    ],
  ])('%s: exit 2 and one line on stderr', async (_name, args, message) => {
    // A key is set so the commands that would call the API get past the login check.
    const result = await svc(args, { ...env, SVC_API_KEY: 'svc_never_used_0000000000000000000000000000' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^error: /)]);
    expect(result.stderr).toMatch(message);
  });

  it('a command group without its verb prints its help on stderr, exit 2', async () => {
    const result = await svc(['accounts'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: svc accounts');
  });

  it('says how to log in when there is no login, exit 2', async () => {
    const result = await svc(['accounts', 'list'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: not logged in: run svc login (or svc login --dev), or set SVC_API_KEY\n');
  });
});

describe('API and network errors', () => {
  it('an API error: exit 1, its message, code and request id on one line (the error body with --json)', async () => {
    const key = await system.apiKey(uniqueName('org'));
    const missing = '00000000-0000-4000-8000-000000000000';
    const result = await svc(['accounts', 'remove', missing], { ...env, SVC_API_KEY: key });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .+ \(not_found, HTTP 404, request [\w.:-]+\)\n$/);
    const json = await svc(['accounts', 'remove', missing, '--json'], { ...env, SVC_API_KEY: key });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'not_found', message: expect.any(String), details: [], request_id: expect.any(String) },
    });
  });

  it('a refused key: exit 1, and login stores nothing', async () => {
    const result = await svc(['login', '--api-key', 'svc_wrong00000000000000000000000000000000000'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .*\(unauthorized, HTTP 401/);
    expect((await svc(['accounts', 'list'], env)).stderr).toMatch(/not logged in/);
  });

  it('an unreachable API: exit 3 naming the failure', async () => {
    const result = await svc(['accounts', 'list'], {
      ...env,
      SVC_BASE_URL: 'http://127.0.0.1:9',
      SVC_API_KEY: 'svc_never_used_0000000000000000000000000000',
    });
    expect(result.code).toBe(3);
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^error: /)]);
  }, 30_000);

  it('svc dev token against a gateway not in development mode: exit 1, one clear line', async () => {
    const result = await svc(['dev', 'token'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: the gateway at http:\/\/127\.0\.0\.1:\d+ is not in development mode: .*\n$/);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
