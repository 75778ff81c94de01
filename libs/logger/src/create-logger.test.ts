import { Writable } from 'node:stream';
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
    expect(lines[0]).toMatchObject({ service: 'gateway', request_id: 'req-42', org_id: 'org_1', msg: 'hello', level: 'info' });
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
