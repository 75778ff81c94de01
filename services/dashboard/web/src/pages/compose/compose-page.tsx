import { Alert, Anchor, Button, Checkbox, Group, Stack, Text, Textarea } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import { SvcApiError, type ResponseData } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { formatDateTime, userTimeZone } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { networkLabel } from '../accounts/networks.ts';
import { composeBody, type When } from './compose-body.ts';
import { Counters } from './counters.tsx';
import { MediaPicker, type Media } from './media-picker.tsx';
import { NetworkOptions } from './network-options.tsx';
import { postTypeChoices } from './post-types.ts';
import { groupProblems } from './problems.ts';
import { emptyRecurrence, recurrenceProblems } from './recurrence.ts';
import { scheduleProblem } from './schedule-time.ts';
import { counterFor, limitsByNetwork } from './text-counter.ts';
import { partOf, problemsOfAddedParts } from './thread.ts';
import { ThreadParts } from './thread-parts.tsx';
import { useCapabilities, useValidation } from './use-compose-checks.ts';
import { WhenFields } from './when-fields.tsx';

type Created = ResponseData<'createPost'>;

/** What the page says once the API took the post (or the draft). */
function createdTitle(post: Created): string {
  if (post.status === 'draft') return 'Draft saved';
  if (post.recurrence_id !== undefined)
    return `Recurring post created: the first goes out ${formatDateTime(post.scheduled_at)}`;
  if (post.status === 'scheduled') return `Post scheduled for ${formatDateTime(post.scheduled_at)}`;
  return 'Post sent for publishing';
}

/** Compose: text with live counters, accounts, media, when, per-network options; the API validates. */
export default function ComposePage() {
  const timeZone = userTimeZone();
  const queryClient = useQueryClient();
  const accounts = useQuery({ queryKey: ['accounts'], queryFn: () => api.accounts.list({ limit: 100 }).page() });
  const [accountIds, setAccountIds] = useState<string[]>([]);
  const [text, setText] = useState('');
  const [threadParts, setThreadParts] = useState<string[]>([]);
  const [media, setMedia] = useState<Media[]>([]);
  const [altText, setAltText] = useState<Record<string, string>>({});
  const [firstComment, setFirstComment] = useState('');
  const [when, setWhen] = useState<When>('now');
  const [wall, setWall] = useState('');
  const [recurrence, setRecurrence] = useState(emptyRecurrence);
  const [privacy, setPrivacy] = useState<string | null>(null);
  const [postTypes, setPostTypes] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<Created | null>(null);

  const chosen = (accounts.data?.items ?? []).filter((a) => accountIds.includes(a.id));
  const networks = [...new Set(chosen.map((a) => a.provider))];
  const capabilities = useCapabilities(accountIds);
  const limits = limitsByNetwork(
    chosen.map((a) => ({ provider: a.provider, limit: capabilities.get(a.id)?.max_text_length ?? null })),
  );
  const counters = [...limits].map(([network, limit]) => counterFor(network, text, limit));
  const choices = postTypeChoices(
    chosen.map((a) => ({ provider: a.provider, postTypes: capabilities.get(a.id)?.post_types })),
  );
  const canThread = networks.length > 0 && networks.every((n) => n === 'x');
  const scheduleError = when === 'later' ? scheduleProblem(wall, timeZone, new Date()) : null;
  const ready =
    scheduleError === null && (when !== 'repeat' || Object.keys(recurrenceProblems(recurrence)).length === 0);
  const body = useMemo(
    () =>
      composeBody({
        accountIds,
        networks,
        text,
        mediaIds: media.map((m) => m.media_id),
        altText,
        threadParts: canThread ? threadParts : [],
        firstComment,
        when,
        wall,
        recurrence,
        timeZone,
        now: new Date(),
        tiktokPrivacy: privacy,
        // Only the types a network offers a choice of: another account may have left the network.
        postTypes: Object.fromEntries(Object.entries(postTypes).filter(([n]) => choices.has(n))),
      }),
    // networks and choices are derived each render: their contents are what the memo depends on.
    [
      accountIds,
      text,
      media,
      altText,
      threadParts,
      firstComment,
      when,
      wall,
      recurrence,
      timeZone,
      privacy,
      postTypes,
      canThread,
      networks.join(),
      [...choices.keys()].join(),
    ],
  );
  const validation = useValidation(body, accountIds.length > 0);
  const create = useMutation({
    mutationFn: (asDraft: boolean) => api.posts.create(asDraft ? { ...body, draft: true } : body),
    onSuccess: (post) => {
      setCreated(post);
      setText('');
      setThreadParts([]);
      setMedia([]);
      setAltText({});
      setFirstComment('');
      setWall('');
      void queryClient.invalidateQueries({ queryKey: ['posts'] });
      void queryClient.invalidateQueries({ queryKey: ['queue'] });
    },
  });
  const createProblems =
    create.error instanceof SvcApiError && create.error.code === 'validation_error' ? create.error.details : [];
  const allProblems = [...(validation.data ?? []), ...createProblems];
  const problems = groupProblems(allProblems.filter((p) => (partOf(p) ?? 0) === 0));
  const partProblems = problemsOfAddedParts(allProblems);
  const thread = canThread && threadParts.length > 0;

  return (
    <Stack maw={760}>
      <PageTitle>Compose</PageTitle>
      {created !== null && (
        <Alert color="green" role="status" title={createdTitle(created)}>
          {created.status === 'draft' ? (
            <Anchor component={Link} to={`/drafts?post=${created.id}`}>
              Open it in Drafts
            </Anchor>
          ) : (
            <Anchor component={Link} to={`/history?post=${created.id}`}>
              Follow it in History
            </Anchor>
          )}
        </Alert>
      )}
      {!(create.error instanceof SvcApiError && create.error.code === 'validation_error') && (
        <ErrorAlert error={create.error} />
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (ready) create.mutate(false);
        }}
      >
        <Stack>
          <Checkbox.Group
            label="Publish to"
            value={accountIds}
            onChange={setAccountIds}
            error={problems.accounts.join(' ') || undefined}
          >
            <Group mt="xs">
              {(accounts.data?.items ?? []).map((account) => (
                <Checkbox
                  key={account.id}
                  value={account.id}
                  label={`${networkLabel(account.provider)} · ${account.handle ?? account.platform_account_id}`}
                />
              ))}
            </Group>
          </Checkbox.Group>
          {accounts.data?.items.length === 0 && (
            <Text>
              No account yet:{' '}
              <Anchor component={Link} to="/accounts">
                connect one
              </Anchor>
              .
            </Text>
          )}
          <Textarea
            label={thread ? 'Thread part 1' : 'Text'}
            autosize
            minRows={4}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            error={problems.text.join(' ') || undefined}
          />
          <Counters counters={counters} />
          {canThread && <ThreadParts parts={threadParts} onChange={setThreadParts} problems={partProblems} />}
          <MediaPicker
            value={media}
            onChange={setMedia}
            error={problems.media}
            altText={altText}
            {...(thread ? {} : { onAltText: setAltText })}
          />
          {!thread && (
            <Textarea
              label="First comment (optional)"
              description="Posted under the post once it is published (a reply on X)."
              autosize
              minRows={2}
              value={firstComment}
              onChange={(e) => setFirstComment(e.currentTarget.value)}
              error={problems.comment.join(' ') || undefined}
            />
          )}
          <WhenFields
            when={when}
            onWhen={setWhen}
            wall={wall}
            onWall={setWall}
            recurrence={recurrence}
            onRecurrence={setRecurrence}
            timeZone={timeZone}
            scheduleError={scheduleError}
            problems={problems.schedule}
          />
          <NetworkOptions
            networks={networks}
            postTypeChoices={choices}
            postTypes={postTypes}
            onPostTypes={setPostTypes}
            privacy={privacy}
            onPrivacy={setPrivacy}
            problems={problems.options}
          />
          <Group>
            <Button type="submit" loading={create.isPending && !create.variables} disabled={accountIds.length === 0}>
              {{ now: 'Publish', later: 'Schedule', queue: 'Add to queue', repeat: 'Start repeating' }[when]}
            </Button>
            <Button
              variant="default"
              loading={create.isPending && create.variables}
              disabled={accountIds.length === 0}
              onClick={() => scheduleError === null && create.mutate(true)}
            >
              Save as draft
            </Button>
            {validation.data?.length === 0 && (
              <Text size="sm" c="green.9">
                The API accepts this post.
              </Text>
            )}
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
