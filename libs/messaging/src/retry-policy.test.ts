import { AppError, validationError } from '@svc/errors';
import { decideFailure, isPermanentFailure } from './retry-policy.ts';

const tiers = [1000, 5000, 30000];

describe('decideFailure', () => {
  it('retries with the tier of the retry number, the last tier repeating', () => {
    expect(decideFailure(new Error('x'), 1, 5, tiers)).toEqual({ action: 'retry', retryCount: 1, delayMs: 1000 });
    expect(decideFailure(new Error('x'), 3, 5, tiers)).toEqual({ action: 'retry', retryCount: 3, delayMs: 30000 });
    expect(decideFailure(new Error('x'), 5, 5, tiers)).toEqual({ action: 'retry', retryCount: 5, delayMs: 30000 });
  });

  it('parks once the retries are used up', () => {
    expect(decideFailure(new Error('x'), 6, 5, tiers)).toEqual({ action: 'park', reason: 'retries_exhausted' });
    expect(decideFailure(new Error('x'), 1, 0, tiers)).toEqual({ action: 'park', reason: 'retries_exhausted' });
  });

  it('parks a non-retryable client error at once', () => {
    expect(decideFailure(validationError('bad'), 1, 5, tiers)).toEqual({ action: 'park', reason: 'non_retryable' });
  });
});

describe('isPermanentFailure', () => {
  it.each([
    [validationError('bad'), true],
    [new AppError('not_found', 'gone'), true],
    [new AppError('conflict', 'already', { retryable: true }), false],
    [new AppError('rate_limited', 'slow down'), false],
    [new AppError('service_unavailable', 'down'), false],
    [new AppError('internal_error', 'bug'), false],
    [new Error('socket hang up'), false],
  ])('%s -> %s', (error, permanent) => {
    expect(isPermanentFailure(error)).toBe(permanent);
  });
});
