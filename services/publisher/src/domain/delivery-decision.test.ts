import { AppError } from '@svc/errors';
import { ProviderError, type ProviderErrorKind } from '@svc/providers';
import {
  accountLost,
  classifyFailure,
  decideNext,
  type AttemptOutcome,
  type DeliveryDecision,
  type DeliveryPolicy,
  type DeliveryState,
} from './delivery-decision.ts';
import type { DeliveryErrorCode } from './errors.ts';
import type { Reconciliation } from './reconcile-delivery.ts';

// Three tries, two quota deferrals on top, a backoff whose last value repeats, three lookups.
const policy: DeliveryPolicy = {
  maxAttempts: 3,
  maxQuotaDeferrals: 2,
  backoffMs: [1000, 5000],
  reconcileDelaysMs: [2000, 10_000, 30_000],
};
const post = { platformPostId: 'p1', url: 'https://x.com/p1' };

const at = (attempt: number, more: Partial<DeliveryState> = {}): DeliveryState => ({
  attempt,
  quotaDeferrals: 0,
  reconcileTries: 0,
  network: 'X',
  ...more,
});
const refused = (code: ProviderErrorKind, retryAfterMs?: number): AttemptOutcome => ({
  kind: 'retry',
  code,
  message: `X refused the post (${code})`,
  retryAfterMs,
});
const retry = (code: ProviderErrorKind, delayMs: number, quotaDeferral = false): DeliveryDecision => ({
  kind: 'retry',
  code,
  message: `X refused the post (${code})`,
  delayMs,
  quotaDeferral,
});
const failed = (code: DeliveryErrorCode, message: string): DeliveryDecision => ({
  kind: 'finish',
  outcome: { kind: 'failed', code, message },
});
const unknown = (attempt: number, reason: string) =>
  failed(
    'outcome_unknown',
    `Whether attempt ${attempt} reached X is unknown: ${reason}. It was not posted again to avoid a duplicate; check the account and publish again if it is missing.`,
  );
const lookUp = (tries: number, delayMs: number, message: string): DeliveryDecision => ({
  kind: 'reconcile',
  message,
  delayMs,
  tries,
});
const checking = (attempt: number) =>
  `Checking with X whether attempt ${attempt} published the post: still processing.`;

type AttemptRow = [string, AttemptOutcome, DeliveryState, DeliveryDecision, Partial<DeliveryPolicy>?];
type LookupRow = [string, Reconciliation, DeliveryState, DeliveryDecision, Partial<DeliveryPolicy>?];
type ClassifyRow = [string, unknown, number, AttemptOutcome];

const permanent: ProviderErrorKind[] = [
  'auth_expired',
  'auth_revoked',
  'permission_missing',
  'duplicate',
  'media_invalid',
  'validation',
];

describe('decideNext: what follows a network attempt', () => {
  it.each<AttemptRow>([
    ...[1, 2, 3].map((n): AttemptRow => [
      `published on attempt ${n}: finished`,
      { kind: 'published', result: post },
      at(n),
      { kind: 'finish', outcome: { kind: 'published', result: post } },
    ]),
    ...permanent.flatMap((code) =>
      [1, 3].map((n): AttemptRow => [
        `a permanent ${code} on attempt ${n}: failed with its code`,
        { kind: 'failed', code, message: 'no' },
        at(n),
        failed(code, 'no'),
      ]),
    ),
    [
      'the account lost since the accept: failed with its code',
      { kind: 'failed', code: 'account_unusable', message: 'reconnect' },
      at(1),
      failed('account_unusable', 'reconnect'),
    ],
    [
      'uncertain on the first attempt: looked up after the first delay',
      { kind: 'uncertain', message: 'lost' },
      at(1),
      lookUp(0, 2000, 'lost'),
    ],
    [
      'uncertain on the last attempt: looked up all the same',
      { kind: 'uncertain', message: 'lost' },
      at(3),
      lookUp(0, 2000, 'lost'),
    ],
    [
      'uncertain with no lookup delays configured: 5 s',
      { kind: 'uncertain', message: 'lost' },
      at(2),
      lookUp(0, 5000, 'lost'),
      { reconcileDelaysMs: [] },
    ],
    ['retryable on the first attempt: the first backoff', refused('rate_limited'), at(1), retry('rate_limited', 1000)],
    ['retryable on a middle attempt: the second backoff', refused('transient'), at(2), retry('transient', 5000)],
    [
      'retryable past the backoff table: its last value repeats',
      refused('transient'),
      at(4),
      retry('transient', 5000),
      { maxAttempts: 5 },
    ],
    [
      'retryable with no backoff configured: 1 s',
      refused('transient'),
      at(1),
      retry('transient', 1000),
      { backoffMs: [] },
    ],
    [
      'a Retry-After longer than the backoff: the Retry-After',
      refused('rate_limited', 8000),
      at(1),
      retry('rate_limited', 8000),
    ],
    [
      'a Retry-After shorter than the backoff: the backoff',
      refused('rate_limited', 300),
      at(2),
      retry('rate_limited', 5000),
    ],
    [
      'retryable on the last attempt: retries exhausted',
      refused('rate_limited', 300),
      at(3),
      failed('retries_exhausted', 'X refused the post (rate_limited) (gave up after 3 attempts)'),
    ],
    [
      'a quota window with deferrals left: deferred to it',
      refused('quota_exhausted', 3_600_000),
      at(1),
      retry('quota_exhausted', 3_600_000, true),
    ],
    [
      'a quota window on the last try, deferrals left: deferred, not exhausted',
      refused('quota_exhausted', 60_000),
      at(4, { quotaDeferrals: 1 }),
      retry('quota_exhausted', 60_000, true),
    ],
    [
      'a quota window, deferrals used up, tries left: an ordinary retry',
      refused('quota_exhausted', 60_000),
      at(3, { quotaDeferrals: 2 }),
      retry('quota_exhausted', 60_000),
    ],
    [
      'a quota window, deferrals and tries used up: retries exhausted',
      refused('quota_exhausted'),
      at(5, { quotaDeferrals: 2 }),
      failed('retries_exhausted', 'X refused the post (quota_exhausted) (gave up after 5 attempts)'),
    ],
    [
      'a quota window with no deferrals allowed: an ordinary retry',
      refused('quota_exhausted'),
      at(1),
      retry('quota_exhausted', 1000),
      { maxQuotaDeferrals: undefined },
    ],
    [
      'deferrals do not count as tries: a rate limit after two is retried',
      refused('rate_limited'),
      at(4, { quotaDeferrals: 2 }),
      retry('rate_limited', 5000),
    ],
    [
      'deferrals do not defer other refusals',
      refused('rate_limited'),
      at(3),
      failed('retries_exhausted', 'X refused the post (rate_limited) (gave up after 3 attempts)'),
    ],
  ])('%s', (_name, outcome, state, expected, overrides = {}) => {
    expect(decideNext(outcome, state, { ...policy, ...overrides })).toEqual(expected);
  });
});

describe('decideNext: what follows a lookup of an uncertain attempt', () => {
  const processing: Reconciliation = { kind: 'wait', reason: 'still processing' };
  it.each<LookupRow>([
    ...[1, 2, 3].map((n): LookupRow => [
      `found for attempt ${n}: published`,
      { kind: 'found', result: post },
      at(n),
      { kind: 'finish', outcome: { kind: 'published', result: post } },
    ]),
    ['absent after the first attempt: posted again', { kind: 'absent' }, at(1), { kind: 'post_again' }],
    ['absent after a middle attempt: posted again', { kind: 'absent' }, at(2), { kind: 'post_again' }],
    [
      'absent after the last attempt: retries exhausted',
      { kind: 'absent' },
      at(3),
      failed('retries_exhausted', 'X has no post from the last of 3 attempts (checked through its read API); gave up.'),
    ],
    [
      'absent after the last try, quota deferrals aside: posted again',
      { kind: 'absent' },
      at(4, { quotaDeferrals: 2 }),
      { kind: 'post_again' },
    ],
    ['a wait on the first lookup: the second delay', processing, at(1), lookUp(1, 10_000, checking(1))],
    [
      'a wait on a middle lookup: the third delay',
      processing,
      at(2, { reconcileTries: 1 }),
      lookUp(2, 30_000, checking(2)),
    ],
    [
      'a wait on the last lookup: outcome unknown',
      processing,
      at(3, { reconcileTries: 2 }),
      unknown(3, 'still processing'),
    ],
    [
      'a wait with one lookup configured: outcome unknown',
      processing,
      at(1),
      unknown(1, 'still processing'),
      { reconcileDelaysMs: [2000] },
    ],
    [
      'a wait with no lookups configured: outcome unknown',
      processing,
      at(1),
      unknown(1, 'still processing'),
      { reconcileDelaysMs: [] },
    ],
    [
      'the network cannot say, lookups left: outcome unknown at once',
      { kind: 'unknown', reason: 'no read API' },
      at(1),
      unknown(1, 'no read API'),
    ],
    [
      'the network cannot say on the last attempt: outcome unknown',
      { kind: 'unknown', reason: 'no read API' },
      at(3, { reconcileTries: 2 }),
      unknown(3, 'no read API'),
    ],
  ])('%s', (_name, found, state, expected, overrides = {}) => {
    expect(decideNext(found, state, { ...policy, ...overrides })).toEqual(expected);
  });
});

describe('classifyFailure: a failed network call as an outcome', () => {
  const error = (
    kind: ProviderErrorKind,
    more: { uncertain?: boolean; networkCode?: string; retryAfterMs?: number } = {},
  ) => new ProviderError({ network: 'x', kind, networkMessage: 'said no', ...more });
  it.each<ClassifyRow>([
    [
      'an unexpected error: uncertain',
      new TypeError('boom'),
      1,
      {
        kind: 'uncertain',
        message:
          'An unexpected error interrupted the call to X; checking whether the post went through before anything else.',
      },
    ],
    [
      'an uncertain network error: uncertain',
      error('transient', { uncertain: true, networkCode: 'timeout' }),
      1,
      {
        kind: 'uncertain',
        message: 'X gave no clear answer (timeout: said no); checking whether the post exists before posting again.',
      },
    ],
    [
      'an uncertain error without a network code: its kind',
      error('transient', { uncertain: true }),
      2,
      {
        kind: 'uncertain',
        message: 'X gave no clear answer (transient: said no); checking whether the post exists before posting again.',
      },
    ],
    [
      'a duplicate on the first attempt: failed',
      error('duplicate'),
      1,
      { kind: 'failed', code: 'duplicate', message: 'X refused the post (duplicate): said no' },
    ],
    [
      'a duplicate after an earlier attempt: uncertain',
      error('duplicate'),
      2,
      {
        kind: 'uncertain',
        message: 'X refused attempt 2 as a duplicate; checking whether an earlier attempt published it.',
      },
    ],
    [
      'a rate limit: retried after its Retry-After',
      error('rate_limited', { retryAfterMs: 7000 }),
      1,
      {
        kind: 'retry',
        code: 'rate_limited',
        message: 'X refused the post (rate_limited): said no',
        retryAfterMs: 7000,
      },
    ],
    [
      'a quota window: retried',
      error('quota_exhausted', { retryAfterMs: 60_000 }),
      2,
      {
        kind: 'retry',
        code: 'quota_exhausted',
        message: 'X refused the post (quota_exhausted): said no',
        retryAfterMs: 60_000,
      },
    ],
    [
      'a transient failure: retried',
      error('transient'),
      3,
      { kind: 'retry', code: 'transient', message: 'X refused the post (transient): said no', retryAfterMs: undefined },
    ],
    [
      'media still processing: retried, not called a refusal',
      error('transient', { networkCode: 'media_processing' }),
      1,
      { kind: 'retry', code: 'transient', message: 'X: said no', retryAfterMs: undefined },
    ],
    ...permanent
      .filter((kind) => kind !== 'duplicate')
      .map((kind): ClassifyRow => [
        `${kind}: failed with its code`,
        error(kind),
        2,
        { kind: 'failed', code: kind, message: `X refused the post (${kind}): said no` },
      ]),
  ])('%s', (_name, thrown, attempt, expected) => {
    expect(classifyFailure('X', attempt, thrown)).toEqual(expected);
  });
});

describe('accountLost: the account gone since the accept', () => {
  const delivery = { provider: 'x', accountId: 'acc_1' };
  it.each<[string, unknown, AttemptOutcome | undefined]>([
    [
      'deleted',
      new AppError('not_found', 'gone'),
      {
        kind: 'failed',
        code: 'account_deleted',
        message: 'The x account acc_1 was deleted after the job was accepted.',
      },
    ],
    [
      'needing reconnection',
      new AppError('conflict', 'token revoked'),
      { kind: 'failed', code: 'account_unusable', message: 'The x account acc_1 needs reconnecting: token revoked' },
    ],
    ['accounts unavailable: not lost', new AppError('service_unavailable', 'down'), undefined],
    ['not an application error: not lost', new Error('socket hang up'), undefined],
  ])('%s', (_name, thrown, expected) => {
    expect(accountLost(delivery, thrown)).toEqual(expected);
  });
});
