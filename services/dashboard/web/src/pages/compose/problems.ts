import type { SvcErrorDetail } from '@svc/sdk';

/** The fields of the compose form a problem can be shown next to. */
export type ComposeField = 'accounts' | 'text' | 'media' | 'schedule' | 'options' | 'comment';

const BY_PATH: [RegExp, ComposeField][] = [
  [/^(\/body)?\/(text|thread)/, 'text'],
  [/^(\/body)?\/(media_urls|media_ids|media_alt_text)/, 'media'],
  [/^(\/body)?\/(scheduled_at|queue|recurrence)/, 'schedule'],
  [/^(\/body)?\/first_comment/, 'comment'],
  [/^(\/body)?\/platform_options/, 'options'],
];

const BY_RULE: [RegExp, ComposeField][] = [
  [/^(text_length|empty|hashtags|mentions|thread)/, 'text'],
  // A kind's own media rules (`reel_duration`, `reel_aspect_ratio`, `story_duration`) are about the media too.
  [/^(media|video|image|gif|url_ownership|reel_|story_)/, 'media'],
  [/^(privacy_level|comment_disabled|stitch_disabled|duet_disabled|post_type|option)/, 'options'],
  [/^(scheduled|queue|recurrence|until|timezone)/, 'schedule'],
  [/^first_comment/, 'comment'],
];

/**
 * Where a problem belongs: by its path when the path names a field, else by its rule (a create's
 * problems name the target account's path and say what was wrong in `rule`), else the accounts.
 */
export function fieldOf(problem: Pick<SvcErrorDetail, 'path' | 'rule'>): ComposeField {
  const path = problem.path ?? '';
  for (const [pattern, field] of BY_PATH) if (pattern.test(path)) return field;
  const rule = problem.rule ?? '';
  for (const [pattern, field] of BY_RULE) if (pattern.test(rule)) return field;
  return 'accounts';
}

/** Problems grouped by field, each message once (two accounts of a network may say the same). */
export function groupProblems(problems: readonly SvcErrorDetail[]): Record<ComposeField, string[]> {
  const grouped: Record<ComposeField, string[]> = {
    accounts: [],
    text: [],
    media: [],
    schedule: [],
    options: [],
    comment: [],
  };
  for (const problem of problems) {
    const list = grouped[fieldOf(problem)];
    if (!list.includes(problem.message)) list.push(problem.message);
  }
  return grouped;
}
