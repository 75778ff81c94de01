import type { ErrorDetail } from '@svc/errors';
import { checkUrl } from '@svc/http';
import {
  checkContent,
  checkFirstComment,
  isNetwork,
  isTikTokVerifiedUrl,
  postFeatures,
  type ContentViolation,
  type MediaInput,
  type MediaKind,
} from '@svc/providers';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { databaseNow } from '../data/database-clock.ts';
import type { AccountsClient, AccountSummary } from './accounts-client.ts';
import { flatMedia, perPart, threadPathOf, threadShapeProblems, type ThreadPart } from './thread-request.ts';

/** What a post asks for, as `POST /v1/posts` (or `/v1/publish`) gives it. */
export interface JobRequest {
  orgId: string;
  requestId: string | null;
  accountIds: string[];
  /** The post's text; undefined for a thread. */
  text: string | undefined;
  /** A thread (X only): its parts instead of `text`, each with its own media. */
  thread: ThreadPart[] | undefined;
  mediaUrls: string[];
  mediaIds: string[];
  /** `media_alt_text`: aligned with the media (`mediaIds`, then `mediaUrls`); "" for an item without one. */
  mediaAltText?: string[] | undefined;
  /** Per-network options keyed by network name. */
  options: Record<string, Record<string, unknown>>;
  scheduledAt: string | undefined;
  /** The body field the options came from (`provider_options` or `platform_options`), for error paths. */
  optionsField: string;
  /** `first_comment.text`: posted under each target's post once it is published. */
  firstComment: string | undefined;
  /** `queue: true`: scheduled at the organization's next free queue time (create only; never with `scheduledAt`). */
  queue?: boolean | undefined;
  /** Set on an occurrence of a recurring post (domain/recurrence-occurrences.ts): stored on its job. */
  recurrenceId?: string | undefined;
}

/** One medium of the post as the rules see it, wherever its facts came from (library record or a URL's head). */
export interface JobMedium {
  /** The address networks will pull it from (under MEDIA_PUBLIC_BASE_URL: URLs are re-hosted in the library). */
  url: string;
  kind: MediaKind;
  durationMs: number | null;
  /** Displayed size in pixels, when measured (a Facebook reel's shape is checked from it). */
  width: number | null;
  height: number | null;
  /** A document's pages when known. */
  pageCount: number | null;
  /** Library id, when it has one; named in its problems. */
  mediaId: string | null;
  /** Per-network verdicts measured from the file (libs/media compatibility). */
  compatibility: Record<string, { ok: boolean; rule: string | null; message: string | null } | undefined>;
}

/**
 * Where the post's media facts come from. `create` imports `media_urls` into the library (only when
 * nothing else is wrong: a refused post stores no file); `validate` reads their headers and first
 * bytes only. Either answers the media it knows and the problems it met, or undefined when it did
 * not look (then the rules that depend on media are not applied).
 */
export type JobMediaSource = (
  request: JobRequest,
  usable: { urls: boolean; rest: boolean },
) => Promise<
  | {
      media: JobMedium[];
      problems: ErrorDetail[];
      /** Some media could not be learned: rules counting or mixing media kinds would mislead. */
      incomplete: boolean;
    }
  | undefined
>;

export interface CheckJobDeps {
  db: PrismaClient;
  accounts: AccountsClient;
  allowPrivateUrls: boolean;
  minLeadSeconds: number;
  /** TIKTOK_VERIFIED_URL_PREFIXES plus the media library's own public base URL. */
  tiktokVerifiedPrefixes: readonly string[];
}

export interface CheckedJob {
  /** Every problem of every target, in body order; empty when the post can be accepted. */
  problems: ErrorDetail[];
  accounts: Map<string, AccountSummary>;
  scheduledAt: Date | null;
}

const TIMEZONE = /(Z|[+-]\d{2}(:?\d{2})?)$/i;
const UNUSABLE = new Set(['revoked', 'requires_reconnect']);
/** Rules about how many media of which kind a post holds: misleading while a medium's kind is unknown. */
const MEDIA_SET_RULES = new Set([
  'media_required',
  'media_count',
  'media_mix',
  'media_type',
  'empty',
  'media_kind_mismatch',
]);
/** Rules about alt text: their problems point at `media_alt_text`. */
const ALT_TEXT_RULES = new Set(['alt_text_length', 'alt_text_media_kind', 'alt_text_unsupported']);
/** Rules about a text: a thread part's problem under them points at the part's `text`. */
const TEXT_RULES = new Set(['text_length', 'empty', 'hashtags', 'mentions']);

/** When the job is due, checked against the database clock (the one the scheduler fires by). */
async function dueTime(
  db: PrismaClient,
  scheduledAt: string | undefined,
  minLeadSeconds: number,
): Promise<{ at: Date | null; problem?: ErrorDetail }> {
  if (scheduledAt === undefined) return { at: null };
  const at = new Date(scheduledAt);
  if (!TIMEZONE.test(scheduledAt.trim()) || Number.isNaN(at.getTime()))
    return {
      at: null,
      problem: {
        path: '/body/scheduled_at',
        message: 'must be an ISO 8601 date-time with a timezone, e.g. 2030-01-01T09:00:00Z',
        rule: 'scheduled_at_format',
      },
    };
  const now = (await databaseNow(db)) ?? new Date();
  if (at.getTime() < now.getTime() + minLeadSeconds * 1000)
    return {
      at: null,
      problem: {
        path: '/body/scheduled_at',
        message: `must be at least ${minLeadSeconds} seconds ahead (server time ${now.toISOString()})`,
        rule: 'scheduled_at_lead',
      },
    };
  return { at };
}

/** Problems that concern the request as a whole: media URLs the SSRF guard refuses, options naming no network. */
async function requestProblems(deps: CheckJobDeps, request: JobRequest): Promise<ErrorDetail[]> {
  const problems: ErrorDetail[] = [];
  // SSRF pre-check (docs/api-conventions.md, "URLs users give us"): resolvable, public http(s)
  // hosts only. Imports and the adapters' downloads check again at connect time, which also covers
  // a host that re-resolves later.
  const checks = await Promise.all(
    request.mediaUrls.map((url) => checkUrl(url, { allowPrivate: deps.allowPrivateUrls })),
  );
  checks.forEach((check, index) => {
    if (!check.ok)
      problems.push({
        path: `/body/media_urls/${index}`,
        message: check.message,
        rule: 'media_url',
        url: request.mediaUrls[index],
      });
  });
  for (const key of Object.keys(request.options)) {
    if (!isNetwork(key))
      problems.push({
        path: `/body/${request.optionsField}/${key}`,
        message: 'is not a network name',
        rule: 'unknown_network',
      });
  }
  return problems;
}

/** Problems of one target account: existence and health, its network's content rules, its media verdicts. */
function accountProblems(
  deps: CheckJobDeps,
  request: JobRequest,
  index: number,
  account: AccountSummary | undefined,
  known: { media: JobMedium[]; incomplete: boolean } | undefined,
): ErrorDetail[] {
  const id = request.accountIds[index]!;
  const path = `/body/account_ids/${index}`;
  if (account === undefined)
    return [
      { path, message: `account ${id} does not exist in this organization`, rule: 'unknown_account', account_id: id },
    ];
  const label = `${account.provider} account ${id}${account.handle === null ? '' : ` (${account.handle})`}`;
  const problem = (rule: string, message: string, extra: Record<string, unknown> = {}): ErrorDetail => ({
    path,
    message: `${label}${message}`,
    rule,
    account_id: id,
    provider: account.provider,
    ...extra,
  });
  const problems: ErrorDetail[] = [];
  if (UNUSABLE.has(account.health))
    problems.push(problem('account_unusable', ` is ${account.health} and must be reconnected before publishing`));
  if (request.thread !== undefined && !postFeatures[account.provider].threads)
    problems.push({
      ...problem('thread_unsupported', ': threads are published on X only; send this network a post with `text`'),
      path: '/body/thread',
    });
  if (request.firstComment !== undefined)
    for (const violation of checkFirstComment(account.provider, request.firstComment, account.rule_extras ?? undefined))
      problems.push({
        ...problem(violation.rule, `: ${violation.message}`),
        path: violation.rule === 'text_length' ? '/body/first_comment/text' : '/body/first_comment',
      });
  if (known === undefined) return problems;
  // Alt text is matched to the media only when every medium is known (else positions would shift).
  const altText = request.mediaAltText;
  const describe = altText !== undefined && !known.incomplete && known.media.length === altText.length;
  const inputOf = (items: readonly JobMedium[]): MediaInput[] =>
    items.map((item, position) => ({
      url: item.url,
      kind: item.kind,
      ...(item.durationMs === null ? {} : { durationMs: item.durationMs }),
      ...(item.width === null || item.height === null ? {} : { width: item.width, height: item.height }),
      ...(item.pageCount === null ? {} : { pageCount: item.pageCount }),
      ...(describe && altText[position] ? { altText: altText[position] } : {}),
    }));
  const content = (text: string, items: MediaInput[], incomplete: boolean): ContentViolation[] =>
    checkContent(account.provider, {
      text,
      media: items,
      options: request.options[account.provider] ?? {},
      ...(account.rule_extras ? { account: account.rule_extras } : {}),
    }).filter((violation) => !(incomplete && MEDIA_SET_RULES.has(violation.rule)));
  if (request.thread === undefined) {
    // Without text (and no thread) the request's shape is the problem, reported once for the post.
    if (request.text !== undefined)
      for (const violation of content(request.text, inputOf(known.media), known.incomplete))
        problems.push({
          ...problem(violation.rule, `: ${violation.message}`),
          ...(ALT_TEXT_RULES.has(violation.rule) ? { path: '/body/media_alt_text' } : {}),
        });
  } else if (postFeatures[account.provider].threads) {
    // Each part is a post of its own to the network: its text and its media, under the post rules.
    const complete =
      known.media.length === flatMedia(request.thread).mediaIds.length + flatMedia(request.thread).mediaUrls.length;
    const media = complete ? perPart(request.thread, known.media) : request.thread.map(() => []);
    request.thread.forEach((part, k) => {
      for (const violation of content(part.text, inputOf(media[k]!), !complete || known.incomplete))
        problems.push({
          ...problem(violation.rule, ` (thread part ${k + 1}): ${violation.message}`),
          path: TEXT_RULES.has(violation.rule) ? `/body/thread/${k}/text` : `/body/thread/${k}`,
        });
    });
  }
  const photo = known.media.find((item) => item.kind === 'image');
  if (
    account.provider === 'tiktok' &&
    photo !== undefined &&
    !isTikTokVerifiedUrl(photo.url, deps.tiktokVerifiedPrefixes)
  )
    problems.push(
      problem(
        'url_ownership_unverified',
        ": TikTok pulls photos only from a verified domain, and the media library's address (MEDIA_PUBLIC_BASE_URL) is not under a verified prefix; post a video or verify the domain (docs/networks.md)",
      ),
    );
  // The per-network verdicts measured from the file refuse it before a post fails
  // (docs/api-conventions.md, "Per-network validation").
  for (const item of known.media) {
    const verdict = item.compatibility[account.provider];
    if (verdict === undefined || verdict.ok) continue;
    const name = item.mediaId === null ? 'a media URL' : `media ${item.mediaId}`;
    problems.push(
      problem(`media_${verdict.rule ?? 'format'}`, `: ${name} does not fit: ${verdict.message ?? 'not accepted'}`, {
        ...(item.mediaId === null ? {} : { media_id: item.mediaId }),
      }),
    );
  }
  return problems;
}

/** `media_alt_text` must match the media one for one, and has no place in a thread (its parts hold the media). */
function altTextShapeProblems(request: JobRequest): ErrorDetail[] {
  const altText = request.mediaAltText;
  if (altText === undefined) return [];
  if (request.thread !== undefined)
    return [
      {
        path: '/body/media_alt_text',
        message: 'cannot be given with a thread',
        rule: 'alt_text_thread',
      },
    ];
  const count = request.mediaIds.length + request.mediaUrls.length;
  return altText.length === count
    ? []
    : [
        {
          path: '/body/media_alt_text',
          message: `must have one entry per medium (media_ids, then media_urls: ${count}), not ${altText.length}`,
          rule: 'alt_text_count',
        },
      ];
}

/**
 * Every problem of a post at once (docs/api-conventions.md, "Validating a post"): the request's
 * URLs and options, its schedule, each target account (unknown, unusable), each network's content
 * rules with the media as `media` gives them, and each medium's per-network verdict. Used by create
 * (a 400 carrying them) and by validate (an answer listing them), so the rules exist once.
 */
export async function checkJob(deps: CheckJobDeps, request: JobRequest, media: JobMediaSource): Promise<CheckedJob> {
  // A thread's media are checked, imported and verified as one list, their problems pointed back at their parts.
  const thread = request.thread;
  const flat = thread === undefined ? request : { ...request, ...flatMedia(thread) };
  const inParts = (detail: ErrorDetail) => (thread === undefined ? detail : threadPathOf(thread, detail));
  const found = (await requestProblems(deps, flat)).map(inParts);
  const urlsUsable = found.length === 0;
  const problems = [...threadShapeProblems(request), ...altTextShapeProblems(request), ...found];
  const due = await dueTime(deps.db, request.scheduledAt, deps.minLeadSeconds);
  if (due.problem !== undefined) problems.push(due.problem);
  if (request.queue === true && request.scheduledAt !== undefined)
    problems.push({
      path: '/body/queue',
      message: 'cannot be combined with scheduled_at: a queued post takes its time from the queue',
      rule: 'queue_with_scheduled_at',
    });
  const accounts = new Map(
    (await deps.accounts.lookup(request.orgId, request.accountIds, request.requestId)).map((account) => [
      account.id,
      account,
    ]),
  );
  const accountsUsable = request.accountIds.every((id) => {
    const account = accounts.get(id);
    return account !== undefined && !UNUSABLE.has(account.health);
  });
  const known = await media(flat, { urls: urlsUsable, rest: problems.length === 0 && accountsUsable });
  if (known !== undefined) problems.push(...known.problems.map(inParts));
  request.accountIds.forEach((id, index) =>
    problems.push(...accountProblems(deps, request, index, accounts.get(id), known)),
  );
  return { problems, accounts, scheduledAt: due.at };
}
