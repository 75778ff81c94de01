import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import axios from 'axios';
import { createLogger, runWithContext } from './index.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  it('writes JSON with the service name and the request id of the current context', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'gateway', destination });
    runWithContext({ requestId: 'req-42', orgId: 'org_1' }, () => logger.info('hello'));
    expect(lines[0]).toMatchObject({
      service: 'gateway',
      request_id: 'req-42',
      org_id: 'org_1',
      msg: 'hello',
      level: 'info',
    });
  });

  it('redacts tokens, secrets, passwords and Authorization headers at any depth', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'accounts', destination });
    logger.info(
      {
        req: { headers: { authorization: 'Bearer svc_abc' } },
        credentials: { access_token: 'tok-1', refresh_token: 'tok-2' },
        app: { client_secret: 'cs' },
        password: 'pw',
        nested: { deeper: { token: 'tok-3' } },
      },
      'connected',
    );
    const text = JSON.stringify(lines[0]);
    for (const secret of ['svc_abc', 'tok-1', 'tok-2', 'cs"', '"pw"', 'tok-3']) expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });
});

describe('redaction of what real failures carry', () => {
  it('finds secrets by key at any depth, in camelCase too, and leaves ordinary fields alone', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'accounts', destination });
    logger.warn(
      {
        a: { b: { c: { d: { e: { f: { access_token: 'deep-1', clientSecret: 'deep-2', 'x-api-key': 'deep-3' } } } } } },
        handle: '@me',
        status: 401,
      },
      'deep',
    );
    const text = JSON.stringify(lines[0]);
    for (const secret of ['deep-1', 'deep-2', 'deep-3']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ handle: '@me', status: 401 });
  });

  it('logs a failing network call made with axios without its token, body or token-bearing URL', async () => {
    const server = createServer((_req, res) =>
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'bad token', access_token: 'echoed-at' } })),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'publisher', destination });
    try {
      const error = await axios
        .post(
          `http://127.0.0.1:${port}/v21.0/me/feed?access_token=query-at-123&fields=id`,
          { refresh_token: 'body-rt-456', message: 'hi' },
          {
            headers: { Authorization: 'Bearer header-at-789' },
            proxy: false,
          },
        )
        .catch((caught: unknown) => caught);
      logger.error({ err: error, cause: { error } }, 'network call failed');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const text = JSON.stringify(lines);
    for (const secret of ['query-at-123', 'body-rt-456', 'header-at-789', 'echoed-at'])
      expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({
      err: { status: 401, method: 'POST', url: expect.stringContaining('access_token=[redacted]&fields=id') },
    });
  });

  it('survives circular objects', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'accounts', destination });
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    logger.info({ loop }, 'circular');
    expect(lines[0]).toMatchObject({ loop: { name: 'loop', self: '[circular]' } });
  });
});
