import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Group,
  Radio,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import { SvcApiError, type RequestBody, type ResponseData } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { userTimeZone } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { networkLabel } from '../accounts/networks.ts';
import { Counters } from './counters.tsx';
import { MediaPicker, type Media } from './media-picker.tsx';
import { groupProblems } from './problems.ts';
import { scheduleProblem, wallTimeToUtc } from './schedule-time.ts';
import { counterFor, limitsByNetwork } from './text-counter.ts';
import { useTextLimits, useValidation } from './use-compose-checks.ts';

const TIKTOK_PRIVACY = ['SELF_ONLY', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'PUBLIC_TO_EVERYONE'];

/** Compose: text with live counters, accounts, media, when, per-network options; the API validates. */
export default function ComposePage() {
  const timeZone = userTimeZone();
  const accounts = useQuery({ queryKey: ['accounts'], queryFn: () => api.accounts.list({ limit: 100 }).page() });
  const [accountIds, setAccountIds] = useState<string[]>([]);
  const [text, setText] = useState('');
  const [media, setMedia] = useState<Media[]>([]);
  const [when, setWhen] = useState<'now' | 'later'>('now');
  const [wall, setWall] = useState('');
  const [privacy, setPrivacy] = useState<string | null>(null);
  const [created, setCreated] = useState<ResponseData<'createPost'> | null>(null);

  const chosen = (accounts.data?.items ?? []).filter((a) => accountIds.includes(a.id));
  const networks = [...new Set(chosen.map((a) => a.provider))];
  const limits = useTextLimits(accountIds);
  const counters = [
    ...limitsByNetwork(chosen.map((a) => ({ provider: a.provider, limit: limits.get(a.id) ?? null }))),
  ].map(([network, limit]) => counterFor(network, text, limit));
  const scheduleError = when === 'later' ? scheduleProblem(wall, timeZone, new Date()) : null;
  const body = useMemo<RequestBody<'createPost'>>(
    () => ({
      account_ids: accountIds,
      text,
      ...(media.length === 0 ? {} : { media_ids: media.map((m) => m.media_id) }),
      ...(when === 'later' && wall !== '' && scheduleProblem(wall, timeZone, new Date()) === null
        ? { scheduled_at: wallTimeToUtc(wall, timeZone).toISOString() }
        : {}),
      ...(networks.includes('tiktok') && privacy !== null
        ? { platform_options: { tiktok: { privacy_level: privacy } } }
        : {}),
    }),
    [accountIds, text, media, when, wall, timeZone, privacy, networks.join()],
  );
  const validation = useValidation(body, accountIds.length > 0);
  const create = useMutation({
    mutationFn: () => api.posts.create(body),
    onSuccess: (post) => {
      setCreated(post);
      setText('');
      setMedia([]);
      setWall('');
    },
  });
  const createProblems =
    create.error instanceof SvcApiError && create.error.code === 'validation_error' ? create.error.details : [];
  const problems = groupProblems([...(validation.data ?? []), ...createProblems]);

  return (
    <Stack maw={760}>
      <PageTitle>Compose</PageTitle>
      {created !== null && (
        <Alert
          color="green"
          role="status"
          title={created.status === 'scheduled' ? 'Post scheduled' : 'Post sent for publishing'}
        >
          <Anchor component={Link} to={`/history?post=${created.id}`}>
            Follow it in History
          </Anchor>
        </Alert>
      )}
      {!(create.error instanceof SvcApiError && create.error.code === 'validation_error') && (
        <ErrorAlert error={create.error} />
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (scheduleError === null) create.mutate();
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
            label="Text"
            autosize
            minRows={4}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            error={problems.text.join(' ') || undefined}
          />
          <Counters counters={counters} />
          <MediaPicker value={media} onChange={setMedia} error={problems.media} />
          <Radio.Group label="When" value={when} onChange={(v) => setWhen(v as 'now' | 'later')}>
            <Group mt="xs">
              <Radio value="now" label="Publish now" />
              <Radio value="later" label="Schedule" />
            </Group>
          </Radio.Group>
          {when === 'later' && (
            <TextInput
              type="datetime-local"
              label={`Date and time (${timeZone})`}
              value={wall}
              onChange={(e) => setWall(e.currentTarget.value)}
              error={scheduleError ?? (problems.schedule.join(' ') || undefined)}
            />
          )}
          {networks.includes('tiktok') && (
            <Stack gap="xs">
              <Title order={3} size="h5">
                TikTok options
              </Title>
              <Select
                label="Who can view"
                data={TIKTOK_PRIVACY}
                value={privacy}
                onChange={setPrivacy}
                error={problems.options.join(' ') || undefined}
              />
            </Stack>
          )}
          {!networks.includes('tiktok') && problems.options.length > 0 && (
            <Text c="red.8">{problems.options.join(' ')}</Text>
          )}
          <Group>
            <Button type="submit" loading={create.isPending} disabled={accountIds.length === 0}>
              {when === 'later' ? 'Schedule' : 'Publish'}
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
