import { stat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { uniqueName, waitFor } from '@svc/testing';
import { testProviders } from '../../libs/providers/test/support/sandbox.ts';
import { NETWORKS, type Network } from '../publishing/publishing-support.ts';
import { connectThroughHandoff, HandoffBrowser } from '../support/handoff-browser.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { cliHome, SAMPLE_IMAGE, startSvc, svc, svcJson, type CliHome } from './cli-process.ts';

// Every publishing command of the CLI as a user runs it, against the whole system in development
// mode (so `svc login --dev` works): accounts, posts with media, history, jobs, media, analytics.
let system: SystemHarness;
let home: CliHome;
let env: Record<string, string>;
const accounts: Partial<Record<Network, string>> = {};

interface PostJson {
  id: string;
  status: string;
  results: { provider: string; status: string; error_code: string | null }[];
}

beforeAll(async () => {
  system = await startSystem({
    services: ['accounts', 'publisher', 'analytics-sync'],
    env: { NODE_ENV: 'development', PROVIDER_TIMEOUT_MS: '5000' },
  });
  home = await cliHome(system.env.MEDIA_PUBLIC_BASE_URL!);
  env = home.env;
}, 120_000);
afterAll(async () => {
  await system?.close();
  await home?.remove();
});

/** The network account a sandbox token acts for, as the network reports it. */
async function platformIdOf(network: Network, token: string): Promise<string> {
  const profile = await testProviders(system.sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 10_000 })[network].profile.fetch({
    accessToken: token,
  });
  return profile.platformAccountId;
}

describe('svc login --dev', () => {
  it('stores an API key and a dashboard token in a 0600 file of a 0700 directory', async () => {
    const result = await svc(['login', '--dev'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Logged in to http:\/\/127\.0\.0\.1:\d+ as organization \S+ \(development\)\./);
    const file = path.join(env.XDG_CONFIG_HOME!, 'svc', 'config.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    expect(stored).toEqual({
      base_url: env.SVC_BASE_URL,
      api_key: expect.stringMatching(/^svc_/),
      token: expect.any(String),
      token_expires_at: expect.any(String),
      dev_org_id: expect.any(String),
    });
    const minted = await svcJson<{ token: string; org_id: string }>(['dev', 'token'], env);
    expect(minted.org_id).toBe(stored.dev_org_id);
  });

  it('svc login --api-key reads the key from stdin too, and checks it first', async () => {
    const other = await cliHome(env.SVC_BASE_URL!);
    try {
      const key = await system.apiKey(uniqueName('org'));
      const result = await svc(['login'], other.env, `${key}\n`);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(await svcJson(['accounts', 'list'], other.env)).toEqual([]);
    } finally {
      await other.remove();
    }
  });
});

describe('svc accounts', () => {
  it('connects one account per network with --token, and lists them', async () => {
    for (const network of NETWORKS) {
      const token = `${uniqueName('tok')}-${network}`;
      const account = await svcJson<{ id: string; provider: string }>(
        ['accounts', 'connect', network, '--token', token, '--id', await platformIdOf(network, token)],
        env,
      );
      expect(account.provider).toBe(network);
      accounts[network] = account.id;
    }
    const listed = await svcJson<{ id: string }[]>(['accounts', 'list'], env);
    expect(new Set(listed.map((account) => account.id))).toEqual(new Set(Object.values(accounts)));
    const table = await svc(['accounts', 'list', '--provider', 'tiktok'], env);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NETWORK\s+HANDLE\s+HEALTH\s+TYPE$/);
    expect(table.stdout).toContain(accounts.tiktok);
    expect(table.stdout).not.toContain(accounts.x);
  }, 60_000);

  it('refreshes an account, and a BYOK connect missing --id is a usage error', async () => {
    expect(await svcJson(['accounts', 'refresh', accounts.x!], env)).toMatchObject({
      id: accounts.x,
      health: 'active',
    });
    const result = await svc(['accounts', 'connect', 'x', '--token', 'abc'], env);
    expect(result).toMatchObject({ code: 2, stderr: 'error: --token needs --id <platform_account_id>\n' });
  });

  it('without --token, prints a hand-off link, and waits until the consent given through it connects the account', async () => {
    const run = startSvc(['accounts', 'connect', 'linkedin', '--timeout', '60', '--json'], env);
    const line = await waitFor(() => run.lines.stderr.find((text) => text.includes('handoff_url')), {
      what: 'the hand-off link',
      timeoutMs: 20_000,
    });
    const printed = JSON.parse(line) as { handoff_url: string; handoff_expires_at: string };
    expect(new URL(printed.handoff_url).pathname).toMatch(/^\/v1\/oauth\/handoff\//);
    // The user's browser, which never saw the CLI's start, opens the link and consents on the network.
    const callback = await connectThroughHandoff(
      new HandoffBrowser(system.env.MEDIA_PUBLIC_BASE_URL!),
      printed.handoff_url,
    );
    expect(callback.status).toBe(200);
    const connected = (await callback.json()) as { account_id: string };
    const result = await run.exited;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: connected.account_id, provider: 'linkedin' });
    const timedOut = await svc(['accounts', 'connect', 'tiktok', '--timeout', '1'], env);
    expect(timedOut).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/no tiktok account was connected within 1 s/),
    });
  }, 60_000);

  it('removes an account', async () => {
    const linkedin = (
      await svcJson<{ id: string; provider: string }[]>(['accounts', 'list', '--provider', 'linkedin'], env)
    )
      .map((account) => account.id)
      .filter((id) => id !== accounts.linkedin);
    expect(linkedin).toHaveLength(1);
    expect(await svcJson(['accounts', 'remove', linkedin[0]!], env)).toEqual({ id: linkedin[0], removed: true });
  });
});

describe('svc post', () => {
  it('uploads a local image and publishes to the five networks with --wait', async () => {
    const result = await svc(
      ['post', 'Hello from the CLI', '--to', 'all', '--media', SAMPLE_IMAGE, '--wait', '--json'],
      env,
    );
    expect(result.code).toBe(0);
    const post = JSON.parse(result.stdout) as PostJson;
    expect(post.status).toBe('published');
    expect(post.results.map((target) => [target.provider, target.status]).sort()).toEqual(
      NETWORKS.map((network) => [network, 'published']).sort(),
    );
    const human = await svc(['job', post.id], env);
    expect(human.stdout).toMatch(new RegExp(`^Post ${post.id}: published\\nNETWORK\\s+ACCOUNT\\s+STATUS\\s+RESULT\\n`));
  }, 120_000);

  it('exits 1 and names the failure when a target fails', async () => {
    await system.sandbox.fault('x', 'duplicate', 1);
    const result = await svc(['post', `duplicate ${uniqueName('t')}`, '--to', 'x', '--wait'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/x\s+\S+\s+failed\s+duplicate: /);
    expect(result.stderr).toMatch(/error: 1 of 1 target\(s\) failed\n$/);
  }, 60_000);

  it('--validate prints every problem of every target and creates nothing', async () => {
    const before = (await svcJson<unknown[]>(['history'], env)).length;
    const invalid = await svc(['post', 'no media', '--to', 'instagram,tiktok', '--validate'], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toContain(accounts.instagram);
    expect(invalid.stdout).toContain(accounts.tiktok);
    expect(invalid.stderr).toMatch(/error: \d+ problem\(s\): the post would be refused/);
    const valid = await svcJson<{ valid: boolean }>(['post', 'fine', '--to', 'x', '--validate'], env);
    expect(valid).toEqual({ valid: true, problems: [] });
    expect((await svcJson<unknown[]>(['history'], env)).length).toBe(before);
  });

  it('schedules with --at, and history and job show it', async () => {
    const at = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const post = await svcJson<PostJson & { scheduled_at: string }>(
      ['post', 'later', '--to', `@${await handleOf('x')}`, '--at', at],
      env,
    );
    expect(post).toMatchObject({ status: 'scheduled', scheduled_at: new Date(at).toISOString() });
    expect((await svcJson<PostJson[]>(['history', '--status', 'scheduled'], env)).map((p) => p.id)).toEqual([post.id]);
    const table = await svc(['history', '--search', 'later'], env);
    expect(table.stdout).toMatch(
      new RegExp(`^ID\\s+STATUS\\s+CREATED\\s+NETWORKS\\s+TEXT\\n${post.id}\\s+scheduled\\s`),
    );
    expect(await svcJson(['job', post.id], env)).toMatchObject({ id: post.id, status: 'scheduled' });
  });

  it('job --watch follows a post until every target is final', async () => {
    const post = await svcJson<PostJson>(['post', `watch ${uniqueName('w')}`, '--to', 'x,linkedin'], env);
    const result = await svc(['job', post.id, '--watch'], env);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n\n').pop()).toMatch(new RegExp(`^Post ${post.id}: published\\n`));
  }, 60_000);
});

async function handleOf(network: Network): Promise<string> {
  const [account] = await svcJson<{ handle: string }[]>(['accounts', 'list', '--provider', network], env);
  return account!.handle;
}

describe('svc queue', () => {
  it('sets and shows the queue, and svc post --queue takes its next free time', async () => {
    const bad = await svc(['queue', 'set', '--timezone', 'Europe/Berlin', 'mon9'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"mon9" is not a slot');
    expect((await svc(['queue', 'set', '--timezone', 'Mars/Base', 'mon@09:00'], env)).code).toBe(1);
    const set = await svcJson<{ timezone: string; next_slots: string[] }>(
      ['queue', 'set', '--timezone', 'europe/berlin', 'mon@09:00', 'thu@18:30'],
      env,
    );
    expect(set.timezone).toBe('Europe/Berlin');
    expect(set.next_slots).toHaveLength(10);
    const shown = await svc(['queue', 'get'], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Slots: mon@09:00 thu@18:30');
    expect(shown.stdout).toContain(set.next_slots[0]!);
    const post = await svcJson<PostJson & { scheduled_at: string }>(
      ['post', `queued ${uniqueName('q')}`, '--to', 'linkedin', '--queue'],
      env,
    );
    expect(post).toMatchObject({ status: 'scheduled', scheduled_at: set.next_slots[0] });
    expect((await svc(['post', 'both', '--to', 'linkedin', '--queue', '--at', '2031-01-01T09:00Z'], env)).code).toBe(2);
  });
});

describe('svc post --repeat and svc recurrences', () => {
  it('creates a recurring post, prints its recurrence, shows and stops it', async () => {
    const human = await svc(
      ['post', `weekly ${uniqueName('r')}`, '--to', 'linkedin', '--repeat', 'mon,thu@09:00', '--count', '2'],
      env,
    );
    expect(human.code).toBe(0);
    // No --timezone: the machine's, said on stderr and in the rule.
    const zone = /Repeating in (\S+), this machine's time zone/.exec(human.stderr)?.[1];
    expect(zone).toEqual(expect.any(String));
    expect(human.stdout).toMatch(
      new RegExp(`\\nRecurrence \\S+: every mon, thu at 09:00 ${zone!.replace('/', '\\/')}, 2 times\\n?$`),
    );

    const post = await svcJson<PostJson & { recurrence_id: string }>(
      ['post', `weekly ${uniqueName('r')}`, '--to', 'linkedin', '--repeat', 'tue@18:30', '--timezone', 'Europe/Berlin'],
      env,
    );
    expect(post).toMatchObject({ status: 'scheduled', recurrence_id: expect.any(String) });
    const shown = await svcJson<{ status: string; rule: Record<string, unknown>; next_occurrences: string[] }>(
      ['recurrences', 'get', post.recurrence_id],
      env,
    );
    expect(shown).toMatchObject({
      status: 'active',
      rule: { days: ['tue'], time: '18:30', timezone: 'Europe/Berlin' },
    });
    const table = await svc(['recurrences', 'get', post.recurrence_id], env);
    expect(table.stdout).toContain(`Recurrence ${post.recurrence_id}: active, every tue at 18:30 Europe/Berlin`);
    expect(table.stdout).toContain(shown.next_occurrences[0]!);
    expect((await svc(['recurrences', 'delete', post.recurrence_id], env)).code).toBe(0);
    expect((await svcJson<{ status: string }>(['recurrences', 'get', post.recurrence_id], env)).status).toBe(
      'cancelled',
    );
  }, 90_000);

  it('checks the rule with --validate, and refuses a bad --repeat or its options alone as usage errors', async () => {
    const refused = await svc(
      ['post', 'never', '--to', 'linkedin', '--repeat', 'mon@09:00', '--timezone', 'Mars/Base', '--validate'],
      env,
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('timezone_invalid');
    for (const args of [
      ['--repeat', 'mon@9'],
      ['--repeat', 'mon@09:00', '--at', '2031-01-01T09:00Z'],
      ['--repeat', 'mon@09:00', '--until', '2031-01-01T09:00Z', '--count', '2'],
      ['--count', '2'],
    ])
      expect((await svc(['post', 'bad', '--to', 'linkedin', ...args], env)).code).toBe(2);
  }, 60_000);
});

describe('svc media', () => {
  it('uploads with a progress bar per file (forced off the terminal) and lists the library', async () => {
    const result = await svc(['media', 'upload', SAMPLE_IMAGE, SAMPLE_IMAGE, '--json'], {
      ...env,
      SVC_PROGRESS: 'always',
    });
    expect(result.code).toBe(0);
    const records = JSON.parse(result.stdout) as { media_id: string }[];
    expect(records).toHaveLength(2);
    const finalBars = result.stderr
      .split('\n')
      .filter((line) => /hello\.jpg \[=+\] 100% \| 13\.1 KB\/13\.1 KB/.test(line));
    expect(finalBars.length).toBeGreaterThanOrEqual(2);
    const listed = await svcJson<{ media_id: string }[]>(['media', 'list'], env);
    expect(listed.map((record) => record.media_id)).toEqual(expect.arrayContaining(records.map((r) => r.media_id)));
    const quiet = await svc(['media', 'upload', SAMPLE_IMAGE], env);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toMatch(
      /^MEDIA ID\s+KIND\s+SIZE\s+DIMENSIONS\s+REFUSED BY\nmed_\S+\s+image\/jpeg\s+14 KB\s+1080x1080/,
    );
  });
});

describe('svc analytics and capabilities', () => {
  it('lists analytics rows of published posts', async () => {
    const page = await svcJson<{ items: { platform: string }[]; total: number }>(['analytics'], env);
    expect(page.total).toBeGreaterThanOrEqual(5);
    const table = await svc(['analytics', '--provider', 'x', '--refresh'], env);
    expect(table.stdout).toMatch(/^POST\s+NETWORK\s+SYNC\s+METRICS\n/);
  });

  it("shows an account's capabilities", async () => {
    expect(await svcJson(['accounts', 'capabilities', accounts.tiktok!], env)).toMatchObject({
      account_id: accounts.tiktok,
      provider: 'tiktok',
    });
    expect((await svc(['accounts', 'capabilities', accounts.x!], env)).stdout).toMatch(/^x account /);
  });
});
