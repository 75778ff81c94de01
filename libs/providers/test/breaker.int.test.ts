import { startSandbox, testProviders, failure, type RunningSandbox } from './support/sandbox.ts';

describe('circuit breaker per network', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => sandbox.close());

  it('opens after repeated server errors, fails fast without calling, and recovers after resetTimeout', async () => {
    await sandbox.reset();
    const providers = testProviders(sandbox.baseUrl, {
      PROVIDER_BREAKER_VOLUME_THRESHOLD: 3,
      PROVIDER_BREAKER_RESET_MS: 300,
    });
    const fetchProfile = () => providers.facebook.profile.fetch({ accessToken: 'EAAB-byok-breaker' });
    await sandbox.fault('facebook', 'server_error', 10);
    for (let i = 0; i < 3; i += 1)
      expect(await failure(fetchProfile)).toMatchObject({ kind: 'transient', status: 500 });

    const open = await failure(fetchProfile);
    expect(open).toMatchObject({ kind: 'transient', networkCode: 'circuit_open', status: undefined });
    // No call reached the sandbox: 7 of the 10 armed faults are still pending.
    expect(await sandbox.pendingFaults()).toEqual([{ network: 'facebook', fault: 'server_error', remaining: 7 }]);
    // Instagram has its own breaker, still closed, and its calls do not touch Facebook's faults.
    await expect(
      providers.instagram.profile.fetch({
        accessToken: 'EAAB-byok-breaker',
        extras: { ig_user_id: '17841400000000001' },
      }),
    ).resolves.toMatchObject({ platformAccountId: '17841400000000001' });

    await sandbox.reset();
    await new Promise((resolve) => setTimeout(resolve, 350));
    await expect(fetchProfile()).resolves.toMatchObject({ platformAccountId: expect.any(String) });
    await expect(fetchProfile()).resolves.toBeDefined();
  });

  it('never opens on 4xx answers (user errors, rate limits)', async () => {
    await sandbox.reset();
    const providers = testProviders(sandbox.baseUrl, { PROVIDER_BREAKER_VOLUME_THRESHOLD: 2 });
    await sandbox.fault('facebook', 'rate_limit', 5);
    for (let i = 0; i < 5; i += 1)
      expect((await failure(() => providers.facebook.profile.fetch({ accessToken: 'EAAB-byok' }))).kind).toBe(
        'rate_limited',
      );
    await expect(providers.facebook.profile.fetch({ accessToken: 'EAAB-byok' })).resolves.toBeDefined();
  });
});
