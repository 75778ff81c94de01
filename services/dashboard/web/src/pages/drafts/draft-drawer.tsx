import { Button, Divider, Drawer, Group, Radio, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SvcApiError, type ResponseData } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { formatDateTime, userTimeZone } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { networkLabel } from '../accounts/networks.ts';
import { scheduleProblem, wallTimeToUtc } from '../compose/schedule-time.ts';
import { ActionError } from './action-error.tsx';
import { DraftApproval } from './draft-approval.tsx';

type Post = ResponseData<'getPost'>;

/**
 * One draft: edit its text (sent with the version it was read at, so another edit in between is a
 * conflict, not overwritten), publish it now or at a time, delete it, and its approval.
 */
export function DraftDrawer({
  postId,
  onClose,
  onPublished,
}: {
  postId: string | null;
  onClose: () => void;
  onPublished: (post: Post) => void;
}) {
  const queryClient = useQueryClient();
  const post = useQuery({
    queryKey: ['post', postId],
    queryFn: () => api.posts.get(postId!),
    enabled: postId !== null,
  });
  /** After an answer: the post as it is now (given, or read again) and the list. */
  const changed = (updated?: Post) => {
    if (updated) queryClient.setQueryData(['post', postId], updated);
    else void queryClient.invalidateQueries({ queryKey: ['post', postId] });
    void queryClient.invalidateQueries({ queryKey: ['posts'] });
  };
  return (
    <Drawer opened={postId !== null} onClose={onClose} position="right" size="lg" title="Draft">
      <ErrorAlert error={post.error} />
      {post.data && post.data.status !== 'draft' && (
        <Text>This post is no longer a draft: it is {post.data.status}. Find it in History.</Text>
      )}
      {post.data?.status === 'draft' && (
        <DraftEditor post={post.data} onChanged={changed} onClose={onClose} onPublished={onPublished} />
      )}
    </Drawer>
  );
}

function DraftEditor({
  post,
  onChanged,
  onClose,
  onPublished,
}: {
  post: Post;
  onChanged: (post?: Post) => void;
  onClose: () => void;
  onPublished: (post: Post) => void;
}) {
  const timeZone = userTimeZone();
  // The text being edited belongs to the version it was read at: a new version shows its own text.
  const [edit, setEdit] = useState<{ version: number | undefined; text: string } | null>(null);
  const text = edit !== null && edit.version === post.version ? edit.text : post.text;
  const [when, setWhen] = useState<'now' | 'later'>(post.scheduled_at === null ? 'now' : 'later');
  const [wall, setWall] = useState('');
  const save = useMutation({
    mutationFn: () =>
      api.posts.update(post.id, { text, ...(post.version === undefined ? {} : { version: post.version }) }),
    onSuccess: (updated) => onChanged(updated),
    onError: () => onChanged(),
  });
  const publish = useMutation({
    mutationFn: () =>
      api.posts.publish(post.id, {
        ...(post.version === undefined ? {} : { version: post.version }),
        ...(when === 'later' && wall !== '' ? { scheduled_at: wallTimeToUtc(wall, timeZone).toISOString() } : {}),
      }),
    onSuccess: (sent) => {
      onChanged(sent);
      onPublished(sent);
    },
    onError: () => onChanged(),
  });
  const remove = useMutation({
    mutationFn: () => api.posts.delete(post.id),
    onSuccess: () => {
      onChanged();
      onClose();
    },
  });
  const problems = (error: unknown) =>
    error instanceof SvcApiError && error.code === 'validation_error'
      ? [...new Set(error.details.map((d) => d.message))].join(' ')
      : undefined;
  const scheduleError = when === 'later' && wall !== '' ? scheduleProblem(wall, timeZone, new Date()) : null;
  const dirty = text !== post.text;

  return (
    <Stack>
      <Text size="sm">
        To {post.providers.map(networkLabel).join(', ')} · saved {formatDateTime(post.created_at)}
        {post.version !== undefined && ` · version ${post.version}`}
      </Text>
      <Textarea
        label="Draft text"
        autosize
        minRows={4}
        value={text}
        onChange={(e) => {
          setEdit({ version: post.version, text: e.currentTarget.value });
          // A refusal explained the last save; typing starts the next one.
          if (save.isError) save.reset();
        }}
        error={problems(save.error)}
      />
      <Group>
        <Button onClick={() => save.mutate()} loading={save.isPending} disabled={!dirty}>
          Save changes
        </Button>
        {save.isSuccess && !dirty && (
          <Text size="sm" role="status">
            Saved.
          </Text>
        )}
      </Group>
      <ActionError
        error={save.error instanceof SvcApiError && save.error.code === 'validation_error' ? null : save.error}
        action="edit"
      />
      <Divider />
      <DraftApproval post={post} onChanged={onChanged} />
      <Divider />
      <Radio.Group label="Send" value={when} onChange={(v) => setWhen(v as 'now' | 'later')}>
        <Group mt="xs">
          <Radio value="now" label="Publish now" />
          <Radio value="later" label="Schedule" />
        </Group>
      </Radio.Group>
      {when === 'later' && (
        <TextInput
          type="datetime-local"
          label={`Date and time (${timeZone})`}
          description={
            post.scheduled_at ? `Empty: the draft's own time, ${formatDateTime(post.scheduled_at)}` : undefined
          }
          value={wall}
          onChange={(e) => setWall(e.currentTarget.value)}
          error={scheduleError ?? problems(publish.error)}
        />
      )}
      <Group>
        <Button
          onClick={() => publish.mutate()}
          loading={publish.isPending}
          disabled={dirty || scheduleError !== null || (when === 'later' && wall === '' && post.scheduled_at === null)}
        >
          {when === 'later' ? 'Schedule draft' : 'Publish draft now'}
        </Button>
        <Button color="red.9" variant="outline" onClick={() => remove.mutate()} loading={remove.isPending}>
          Delete draft
        </Button>
      </Group>
      {dirty && <Text size="sm">Save your changes before publishing.</Text>}
      <ActionError
        error={
          publish.error instanceof SvcApiError && publish.error.code === 'validation_error' && when === 'later'
            ? null
            : publish.error
        }
        action="publish"
      />
      <ActionError error={remove.error} action="delete" />
    </Stack>
  );
}
