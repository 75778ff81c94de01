import { AppError } from '@svc/errors';
import { assertReceiverUrl } from './endpoint-url.ts';

const strict = { allowPrivate: false, requireHttps: false };
const dev = { allowPrivate: true, requireHttps: false };

async function refusal(url: string, rules = strict): Promise<string> {
  try {
    await assertReceiverUrl(url, rules);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation_error');
    return (error as AppError).message;
  }
  throw new Error(`${url} was accepted`);
}

describe('assertReceiverUrl (docs/api-conventions.md, "URLs users give us")', () => {
  it('refuses link-local and metadata addresses always', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/',
      'http://[fd00:ec2::254]/',
      'http://[::ffff:169.254.169.254]/',
    ]) {
      expect(await refusal(url, dev)).toMatch(/not allowed or could not be resolved/);
    }
  });

  it('refuses loopback and private addresses unless ALLOW_PRIVATE_URLS', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://10.0.0.5/hook',
      'http://192.168.1.2/',
      'http://[::1]/',
    ]) {
      expect(await refusal(url)).toMatch(/not allowed or could not be resolved/);
      await expect(assertReceiverUrl(url, dev)).resolves.toBe(new URL(url).toString());
    }
  });

  it('says the same of a name that does not resolve and of one that resolves to a refused address', async () => {
    expect(await refusal('http://no-such-host.invalid/hook')).toBe(await refusal('http://localhost/hook'));
    expect(await refusal('http://no-such-host.invalid/hook', dev)).toBe(
      await refusal('http://169.254.169.254/latest', dev),
    );
  });

  it('refuses other schemes, invalid URLs, credentials, unresolvable hosts, and http in production', async () => {
    expect(await refusal('ftp://example.com/hook', dev)).toMatch(/http or https/);
    expect(await refusal('not a url', dev)).toMatch(/not a valid URL/);
    expect(await refusal('http://user:pass@127.0.0.1/hook', dev)).toMatch(/credentials/);
    expect(await refusal('http://no-such-host.invalid/hook', dev)).toMatch(/not allowed or could not be resolved/);
    expect(await refusal('http://127.0.0.1/hook', { allowPrivate: true, requireHttps: true })).toMatch(
      /must use https/,
    );
  });
});
