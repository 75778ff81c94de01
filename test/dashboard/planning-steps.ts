import type { Page } from 'playwright-core';
import { waitFor } from '@svc/testing';
import { accessibilityViolations } from '../support/browser.ts';

// Steps of the browser journey (browser-journey.int.test.ts) for the pages that plan posts ahead:
// Drafts and Queue. They run in the journey's organization, with its X account connected.

/** Waits for the page's heading and records axe's violations under `name`. */
type CheckPage = (name: string) => Promise<void>;

/**
 * A draft through its whole life: saved from Compose, edited (with its version; an edit made from a
 * version changed meanwhile is refused and explained), sent for approval,
 * a review link made, approved with a comment by the signed-in user, then published.
 */
export async function draftThroughApproval(page: Page, checkPage: CheckPage): Promise<void> {
  await page.getByRole('link', { name: 'Compose' }).click();
  await page.getByRole('checkbox', { name: /^X · / }).check();
  await page.getByLabel('Text', { exact: true }).fill('A draft to review');
  await page.getByRole('button', { name: 'Save as draft' }).click();
  await page.getByText('Draft saved').waitFor();
  await page.getByRole('link', { name: 'Open it in Drafts' }).click();
  await page.waitForURL(/\/drafts\?post=/);
  const drawer = page.getByRole('dialog', { name: 'Draft' });
  await drawer.getByLabel('Draft text').fill('A draft to review, edited');
  await drawer.getByRole('button', { name: 'Save changes' }).click();
  await drawer.getByText('version 2').waitFor();

  // Another edit lands while the drawer shows version 2 (another tab, a colleague): the next save
  // from the drawer is refused, explained, and the draft shown as it is now.
  const postId = new URL(page.url()).searchParams.get('post')!;
  const otherEdit = await page.evaluate(async (id) => {
    const me = (await (await fetch('/auth/me')).json()) as { csrf_token: string };
    const res = await fetch(`/api/v1/posts/${id}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': me.csrf_token },
      body: JSON.stringify({ text: 'Changed in another tab' }),
    });
    return res.status;
  }, postId);
  expect(otherEdit).toBe(200);
  await drawer.getByLabel('Draft text').fill('An edit made from version 2');
  await drawer.getByRole('button', { name: 'Save changes' }).click();
  await drawer
    .getByTestId('draft-refused')
    .filter({ hasText: 'Someone changed this draft after you opened it' })
    .waitFor();
  await drawer.getByText('version 3').waitFor();
  expect(await drawer.getByLabel('Draft text').inputValue()).toBe('Changed in another tab');

  await drawer.getByRole('button', { name: 'Request approval' }).click();
  await drawer.getByTestId('approval-status').filter({ hasText: 'Waiting for approval' }).waitFor();
  await drawer.getByRole('button', { name: 'Copy review link' }).click();
  expect(await drawer.getByTestId('secret').textContent()).toMatch(/\/v1\/review\/[^/]+$/);
  await checkPage('drafts');
  await drawer.getByLabel('Review comment (optional)').fill('Good to go');
  await drawer.getByRole('button', { name: 'Approve' }).click();
  await drawer.getByTestId('approval-status').filter({ hasText: 'Approved' }).waitFor();
  await drawer.getByText('“Good to go”').waitFor();
  await drawer.getByRole('button', { name: 'Publish draft now' }).click();
  await page.getByText('Draft sent for publishing').waitFor();
  await waitFor(async () => (await page.getByTestId('draft-row').count()) === 0, {
    what: 'the published draft gone from Drafts',
    timeoutMs: 10_000,
  });
}

/** Weekly queue times saved, then a post added to the queue takes the next free slot Compose showed. */
export async function queueAPost(page: Page, checkPage: CheckPage, violations: Record<string, string[]>) {
  await page.getByRole('link', { name: 'Queue' }).click();
  await checkPage('queue');
  for (const time of ['10:00', '16:30']) {
    await page.getByLabel('Time', { exact: true }).fill(time);
    await page.getByRole('button', { name: 'Add time' }).click();
  }
  await page.getByRole('button', { name: 'Remove Monday 16:30' }).waitFor();
  await page.getByRole('button', { name: 'Save queue' }).click();
  await page.getByText('Queue saved.').waitFor();
  await page.getByTestId('next-slots').getByRole('listitem').first().waitFor();
  violations['queue-saved'] = await accessibilityViolations(page);

  await page.getByRole('link', { name: 'Compose' }).click();
  await page.getByRole('checkbox', { name: /^X · / }).check();
  await page.getByLabel('Text', { exact: true }).fill('Into the queue');
  await page.getByRole('radio', { name: 'Add to queue' }).check();
  const next = (await page.getByTestId('next-slot').textContent())?.replace('Next free slot: ', '');
  expect(next).toBeTruthy();
  await page.getByRole('button', { name: 'Add to queue' }).click();
  await page.getByText(`Post scheduled for ${next}`).waitFor();
}

/** A post repeated weekly from Compose; its first occurrence in History shows the rule, which is stopped there. */
export async function repeatWeekly(page: Page, violations: Record<string, string[]>) {
  await page.getByRole('link', { name: 'Compose' }).click();
  await page.getByRole('checkbox', { name: /^X · / }).check();
  await page.getByLabel('Text', { exact: true }).fill('Every Monday and Thursday');
  await page.getByRole('radio', { name: 'Repeat weekly' }).check();
  await page.getByRole('checkbox', { name: 'Thursday' }).check();
  await page.getByRole('checkbox', { name: 'Monday' }).check();
  await page.getByRole('button', { name: 'Start repeating' }).click();
  await page.getByText('Recurring post created').waitFor();
  await page.getByRole('link', { name: 'Follow it in History' }).click();
  const drawer = page.getByRole('dialog', { name: 'Post details' });
  const rule = drawer.getByTestId('recurrence');
  await rule.getByText(/^Repeating: Monday, Thursday at 09:00/).waitFor();
  violations['recurrence'] = await accessibilityViolations(page);
  await rule.getByRole('button', { name: 'Stop repeating' }).click();
  await rule.getByText(/^Stopped: no more posts will be created/).waitFor();
  // The occurrence still scheduled is canceled with its rule.
  await drawer.getByTestId('detail-status').filter({ hasText: 'canceled' }).waitFor({ timeout: 10_000 });
  await drawer.getByRole('button', { name: 'Close' }).click();
  await drawer.waitFor({ state: 'hidden' });
}
