import { AppError, fromErrorBody, toErrorBody, unavailableError } from './index.ts';

describe('toErrorBody', () => {
  it('maps an AppError to its status and public body', () => {
    const { status, body } = toErrorBody(
      new AppError('validation_error', 'The body is invalid.', {
        details: [{ path: '/body/text', message: 'is required' }],
      }),
      'req-1',
    );
    expect(status).toBe(400);
    expect(body).toEqual({
      error: {
        code: 'validation_error',
        message: 'The body is invalid.',
        details: [{ path: '/body/text', message: 'is required' }],
        request_id: 'req-1',
      },
    });
  });

  it('hides the message of an unexpected error, which may carry secrets', () => {
    const { status, body } = toErrorBody(new Error('password=hunter2 in connection string'), 'req-2');
    expect(status).toBe(500);
    expect(body.error.code).toBe('internal_error');
    expect(JSON.stringify(body)).not.toContain('hunter2');
  });

  it('round-trips through fromErrorBody keeping the code', () => {
    const { body } = toErrorBody(new AppError('conflict', 'Job is already queued.'), 'r');
    const rebuilt = fromErrorBody(body);
    expect(rebuilt?.code).toBe('conflict');
    expect(rebuilt?.status).toBe(409);
    expect(fromErrorBody({ error: { code: 'nope', message: 'x' } })).toBeUndefined();
  });

  it('rebuilds Retry-After of a 429 sent over RPC from its detail, so the caller is told when to retry', () => {
    const refused = new AppError('rate_limited', 'Busy; retry in 5 s.', {
      retryable: true,
      headers: { 'Retry-After': '5' },
      details: [{ message: 'busy', retry_after_seconds: 5 }],
    });
    const rebuilt = fromErrorBody(toErrorBody(refused, 'r').body);
    expect(rebuilt).toMatchObject({
      code: 'rate_limited',
      status: 429,
      retryable: true,
      headers: { 'Retry-After': '5' },
    });
  });

  it('rebuilds Retry-After of a 503 sent over RPC the same way (a busy decoder of the publisher)', () => {
    const busy = new AppError('service_unavailable', 'Busy.', {
      retryable: true,
      headers: { 'Retry-After': '5' },
      details: [{ message: 'busy', retry_after_seconds: 5 }],
    });
    expect(fromErrorBody(toErrorBody(busy, 'r').body)).toMatchObject({
      code: 'service_unavailable',
      status: 503,
      headers: { 'Retry-After': '5' },
    });
  });

  describe('an unexpected error that only says a dependency is down or full', () => {
    // The shapes node-postgres and Prisma's driver adapter give (seen against a real server that refused).
    const prismaWith = (cause: Record<string, unknown>) =>
      Object.assign(new Error('Raw query failed.'), {
        name: 'PrismaClientKnownRequestError',
        code: 'P2010',
        meta: { driverAdapterError: { name: 'DriverAdapterError', cause } },
      });
    it.each([
      [
        'PostgreSQL refused a connection (53300, too many clients)',
        Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
      ],
      [
        'the server is shutting down (57P01)',
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ],
      ['a connection exception (class 08)', Object.assign(new Error('connection failure'), { code: '08006' })],
      [
        'the socket was refused, as a cause',
        new Error('query failed', {
          cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
        }),
      ],
      ['node-postgres lost its connection', new Error('Connection terminated unexpectedly')],
      ['Prisma: too many connections', prismaWith({ originalCode: '53300', kind: 'TooManyConnections' })],
      [
        'Prisma: the server cannot be reached',
        prismaWith({ kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 }),
      ],
    ])('%s: 503 service_unavailable, retryable, the cause not shown', (_name, error) => {
      const { status, body } = toErrorBody(error, 'req-3');
      expect(status).toBe(503);
      expect(body.error).toEqual({
        code: 'service_unavailable',
        message: expect.stringContaining('retry'),
        request_id: 'req-3',
      });
      expect(unavailableError(error)?.retryable).toBe(true);
      expect(JSON.stringify(body)).not.toMatch(/5432|clients|Connection terminated/);
    });

    it.each([
      ['a unique violation (23505)', Object.assign(new Error('duplicate key'), { code: '23505' })],
      ['Prisma: a unique violation', prismaWith({ originalCode: '23505', kind: 'UniqueConstraintViolation' })],
      ['a bug', new TypeError('cannot read properties of undefined')],
    ])('%s stays a 500', (_name, error) => {
      expect(toErrorBody(error, 'r').status).toBe(500);
      expect(unavailableError(error)).toBeUndefined();
    });
  });
});
