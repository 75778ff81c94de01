import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADDRESS_REFUSED, describeAttemptError } from './attempt-error.ts';
import { HttpSender } from './http-sender.ts';

describe('HttpSender', () => {
  let server: http.Server;
  let base: string;
  const sender = new HttpSender({
    policy: { allowPrivate: true },
    timeoutMs: 500,
    connectTimeoutMs: 300,
    responseCapBytes: 16,
    maxSockets: 4,
  });
  // Refusals and resolver failures must come back as such, not as a timeout on a loaded machine.
  const strict = new HttpSender({
    policy: { allowPrivate: false },
    timeoutMs: 10_000,
    connectTimeoutMs: 10_000,
    responseCapBytes: 16,
    maxSockets: 4,
  });
  const patient = new HttpSender({
    policy: { allowPrivate: true },
    timeoutMs: 10_000,
    connectTimeoutMs: 10_000,
    responseCapBytes: 16,
    maxSockets: 4,
  });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/redirect') return res.writeHead(308, { Location: '/ok' }).end();
      if (req.url === '/hang') return;
      if (req.url === '/big') return res.writeHead(200).end('x'.repeat(100_000));
      res.writeHead(req.url === '/busy' ? 429 : 200, { 'Retry-After': '7' }).end('fine');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('posts and reads the status, an excerpt and Retry-After', async () => {
    const result = await sender.send(`${base}/busy`, {}, '{}');
    expect(result).toMatchObject({ statusCode: 429, excerpt: 'fine', retryAfter: '7', error: null });
  });

  it('does not follow redirects', async () => {
    expect((await sender.send(`${base}/redirect`, {}, '{}')).statusCode).toBe(308);
  });

  it('reads at most the cap of a large body', async () => {
    const result = await sender.send(`${base}/big`, {}, '{}');
    expect(result.statusCode).toBe(200);
    expect(result.excerpt).toBe('x'.repeat(16));
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const result = await sender.send(`${base}/hang`, {}, '{}');
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/within 500 ms/);
  });

  it("holds a call's own shorter timeout (test sends)", async () => {
    const result = await sender.send(`${base}/hang`, {}, '{}', { timeoutMs: 200 });
    expect(result.error).toMatch(/within 200 ms/);
  });

  it('refuses loopback, link-local and metadata addresses at connect time, naming neither the address nor whether the name resolved', async () => {
    const refusals = [
      `${base}/ok`,
      'http://localhost:1/',
      'http://169.254.169.254/latest',
      'http://[::1]:1/',
      'http://no-such-host.invalid/',
    ];
    const errors = [];
    for (const url of refusals) {
      const result = await strict.send(url, {}, '{}');
      expect(result.statusCode).toBeNull();
      errors.push(result.error);
    }
    errors.push((await patient.send('http://169.254.169.254/latest', {}, '{}')).error);
    errors.push((await patient.send('http://no-such-host.invalid/', {}, '{}')).error);
    // A blocked address and a name that does not resolve read the same, with no address in them.
    expect(new Set(errors)).toEqual(new Set([ADDRESS_REFUSED]));
  });

  it('says the same of every resolver failure, whatever its code', () => {
    const resolverRefused = Object.assign(new Error('queryA ECONNREFUSED internal.example'), {
      code: 'ECONNREFUSED',
      syscall: 'queryA',
    });
    const resolverTimeout = Object.assign(new Error('queryAaaa ETIMEOUT internal.example'), {
      code: 'ETIMEOUT',
      syscall: 'queryAaaa',
    });
    expect([describeAttemptError(resolverRefused), describeAttemptError(resolverTimeout)]).toEqual([
      ADDRESS_REFUSED,
      ADDRESS_REFUSED,
    ]);
  });

  it('names a refused connection by its code only, without the address', async () => {
    const result = await patient.send('http://127.0.0.1:1/', {}, '{}');
    expect(result.error).toMatch(/^ECONNREFUSED/);
    expect(result.error).not.toMatch(/127\.0\.0\.1/);
  });
});
