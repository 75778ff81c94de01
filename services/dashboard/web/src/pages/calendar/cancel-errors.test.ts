import { SvcApiError, SvcNetworkError } from '@svc/sdk';
import { explainCancelError } from './cancel-errors.ts';

const apiError = (status: number, code: string, message: string) =>
  new SvcApiError(status, { error: { code, message, request_id: 'req_1' } }, new Headers());

describe('why a cancel failed, in words', () => {
  it('explains a 409 as a post already being published, to follow in History', () => {
    const explanation = explainCancelError(
      apiError(409, 'conflict', 'The job 0b9d… is queued and can no longer be canceled; only scheduled jobs can.'),
    );
    expect(explanation).toEqual({
      message: 'This post is already being published and can no longer be canceled.',
      followInHistory: true,
    });
  });

  it('never shows the API’s own sentence or the job id', () => {
    const explanation = explainCancelError(
      apiError(409, 'conflict', 'The job 0b9d2c1e is processing and can no longer be canceled.'),
    );
    expect(explanation?.message).not.toMatch(/job|0b9d2c1e|processing/);
  });

  it('explains a 404 as a post the organization no longer has, with nothing to follow', () => {
    const explanation = explainCancelError(apiError(404, 'not_found', 'The job 0b9d2c1e was not found.'));
    expect(explanation?.followInHistory).toBe(false);
    expect(explanation?.message).toMatch(/can no longer be found/);
  });

  it('leaves other failures to the general error message', () => {
    expect(explainCancelError(apiError(503, 'service_unavailable', 'Try again.'))).toBeNull();
    expect(explainCancelError(apiError(500, 'internal_error', 'Something failed.'))).toBeNull();
    expect(explainCancelError(new SvcNetworkError('connection refused'))).toBeNull();
    expect(explainCancelError(new Error('boom'))).toBeNull();
  });

  it('goes by the error code: a 409 without the API’s body (a proxy’s page) is not taken for one', () => {
    expect(explainCancelError(new SvcApiError(409, '<html>', new Headers()))).toBeNull();
  });
});
