import { AppError, fromErrorBody, toErrorBody } from './index.ts';

describe('toErrorBody', () => {
  it('maps an AppError to its status and public body', () => {
    const { status, body } = toErrorBody(
      new AppError('validation_error', 'The body is invalid.', { details: [{ path: '/body/text', message: 'is required' }] }),
      'req-1',
    );
    expect(status).toBe(400);
    expect(body).toEqual({
      error: { code: 'validation_error', message: 'The body is invalid.', details: [{ path: '/body/text', message: 'is required' }], request_id: 'req-1' },
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
});
