import type { PostViewType } from '@svc/contracts';
import { documentOf, escapeHtml, STYLE_SOURCE, type HandoffPage } from './oauth-handoff-page.ts';

// The review page of a draft, opened from a signed link by someone without an account: every value
// escaped, no script, images not loaded (media are listed as links), and a CSP that allows only the
// page's stylesheet (by hash) and its own form.

const CSP = `default-src 'none'; style-src ${STYLE_SOURCE}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

const list = (items: string[]) => `<ul>${items.map((item) => `<li>${item}</li>`).join('')}</ul>`;

/** The draft as it stands (text or thread, media, targets) with the approve / request-changes form. */
export function reviewPage(post: PostViewType, action: string): HandoffPage {
  const media = post.media_urls.map((url) => `<a href="${escapeHtml(url)}" rel="noreferrer">${escapeHtml(url)}</a>`);
  const targets = post.account_ids.map((id) => `<code>${escapeHtml(id)}</code>`);
  const body = [
    '<h1>Review this post</h1>',
    `<p class="note">Networks: ${escapeHtml(post.providers.join(', '))}</p>`,
    `<blockquote><p>${escapeHtml(post.text).replace(/\n/g, '<br>')}</p></blockquote>`,
    media.length > 0 ? `<h2>Media</h2>${list(media)}` : '',
    `<h2>Accounts</h2>${list(targets)}`,
    `<form method="post" action="${escapeHtml(action)}">`,
    '<p><label for="comment">Comment (optional)</label><br>',
    '<textarea id="comment" name="comment" rows="4" cols="40" maxlength="2000"></textarea></p>',
    '<p><button type="submit" name="decision" value="approve">Approve</button> ',
    '<button type="submit" name="decision" value="request_changes">Request changes</button></p>',
    '</form>',
  ].join('\n');
  return { status: 200, html: documentOf('Review a post', body), csp: CSP };
}

/** What the reviewer sees once the decision is recorded. */
export function decidedPage(decision: 'approve' | 'request_changes'): HandoffPage {
  const said = decision === 'approve' ? 'approved' : 'sent back with your request for changes';
  return {
    status: 200,
    html: documentOf('Thank you', `<h1>Thank you</h1>\n<p>The post was ${said}. You can close this page.</p>`),
    csp: CSP,
  };
}
