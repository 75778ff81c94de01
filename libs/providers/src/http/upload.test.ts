import { ProviderError } from '../errors/provider-error.ts';
import { uploadStep, uploadTimeoutMs } from './upload.ts';

const options = { baseTimeoutMs: 15_000, minBytesPerSecond: 256 * 1024, stepAttempts: 3 };

describe('upload steps', () => {
  it('gives a request a timeout that grows with the bytes it carries', () => {
    expect(uploadTimeoutMs(options, 0)).toBe(15_000);
    // 10 MB at 256 KB/s: 40 s on top of the JSON budget.
    expect(uploadTimeoutMs(options, 10 * 1024 * 1024)).toBe(55_000);
  });

  it('retries a timed-out step alone, with the same timeout, and gives up after stepAttempts', async () => {
    const timeout = new ProviderError({
      network: 'tiktok',
      kind: 'transient',
      networkCode: 'timeout',
      networkMessage: 'No answer.',
    });
    const timeouts: number[] = [];
    const send = jest.fn(async (timeoutMs: number) => {
      timeouts.push(timeoutMs);
      if (timeouts.length < 2) throw timeout;
      return 'sent';
    });
    await expect(uploadStep(options, 1024 * 1024, send)).resolves.toBe('sent');
    expect(timeouts).toEqual([19_000, 19_000]);

    const always = jest.fn(async () => Promise.reject(timeout));
    await expect(uploadStep(options, 10, always)).rejects.toBe(timeout);
    expect(always).toHaveBeenCalledTimes(3);
  });

  it('does not retry a refusal (only transient failures are retried)', async () => {
    const refused = new ProviderError({ network: 'x', kind: 'validation', networkMessage: 'Bad segment.' });
    const send = jest.fn(async () => Promise.reject(refused));
    await expect(uploadStep(options, 10, send)).rejects.toBe(refused);
    expect(send).toHaveBeenCalledTimes(1);
  });
});
