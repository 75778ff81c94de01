import { SvcApiError, SvcNetworkError } from '@svc/sdk';
import { canRetry, explainRetryError } from './retry-errors.ts';

const apiError = (status: number, code: string) =>
  new SvcApiError(
    status,
    { error: { code, message: 'The post 0b9d is queued and has no failed target to retry.' } },
    new Headers(),
  );

describe('retrying a failed post', () => {
  it('offers a retry only for failed and partial posts', () => {
    expect(['failed', 'partial'].every(canRetry)).toBe(true);
    expect(['published', 'queued', 'processing', 'scheduled', 'draft', 'canceled'].some(canRetry)).toBe(false);
  });

  it('explains a 409 as nothing left to retry, in words and without the API’s sentence', () => {
    const words = explainRetryError(apiError(409, 'conflict'));
    expect(words).toMatch(/^Nothing to retry/);
    expect(words).not.toMatch(/0b9d|409|conflict/);
    expect(explainRetryError(apiError(404, 'not_found'))).toMatch(/can no longer be found/);
  });

  it('leaves other failures to the general error message', () => {
    expect(explainRetryError(apiError(422, 'account_unusable'))).toBeNull();
    expect(explainRetryError(apiError(409, 'idempotency_conflict'))).toBeNull();
    expect(explainRetryError(new SvcNetworkError('refused'))).toBeNull();
  });
});
