import { SvcApiError, SvcNetworkError } from '@svc/sdk';
import { explainDraftError } from './draft-errors.ts';

const apiError = (status: number, code: string, details: object[] = []) =>
  new SvcApiError(
    status,
    { error: { code, message: 'The draft 0b9d was changed since version 2.', details } },
    new Headers(),
  );

describe('why a draft action was refused, in words', () => {
  it('explains an edit conflict (409 or 412) as someone else’s change, without the API’s sentence', () => {
    for (const status of [409, 412]) {
      const words = explainDraftError(apiError(status, status === 409 ? 'conflict' : 'precondition_failed'), 'edit');
      expect(words).toMatch(/^Someone changed this draft after you opened it/);
      expect(words).not.toMatch(/0b9d|version 2|409|412/);
    }
  });

  it('tells a publish waiting for approval from a draft that is gone', () => {
    const approval = apiError(409, 'conflict', [
      { path: '/approval/status', rule: 'approval_required', message: 'is pending' },
    ]);
    expect(explainDraftError(approval, 'publish')).toMatch(/needs approval/);
    expect(explainDraftError(apiError(409, 'conflict'), 'publish')).toMatch(/no longer a draft/);
  });

  it('says what each other refused action means', () => {
    expect(explainDraftError(apiError(409, 'conflict'), 'delete')).toMatch(/cancel it from the Calendar/);
    expect(explainDraftError(apiError(409, 'conflict'), 'review')).toMatch(/no approval pending/);
    expect(explainDraftError(apiError(409, 'conflict'), 'review-link')).toMatch(/ask for approval first/);
    expect(explainDraftError(apiError(409, 'conflict'), 'request-approval')).toMatch(/only a draft/);
    expect(explainDraftError(apiError(404, 'not_found'), 'edit')).toMatch(/can no longer be found/);
  });

  it('leaves other failures to the general error message', () => {
    expect(explainDraftError(apiError(400, 'validation_error'), 'edit')).toBeNull();
    expect(explainDraftError(apiError(402, 'plan_limit_reached'), 'publish')).toBeNull();
    expect(explainDraftError(apiError(409, 'idempotency_conflict'), 'publish')).toBeNull();
    expect(explainDraftError(new SvcNetworkError('refused'), 'edit')).toBeNull();
    expect(explainDraftError(new SvcApiError(409, '<html>', new Headers()), 'edit')).toBeNull();
  });
});
