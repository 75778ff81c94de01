import {
  Alert,
  Button,
  Group,
  Modal,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { SvcApiError, type ResponseData } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { formatDateTime, userTimeZone } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { networkLabel } from '../accounts/networks.ts';
import { byDay, dayKey, monthWeeks, shiftDays, shiftMonth, weekDays } from './calendar-grid.ts';

type Post = ResponseData<'listPosts'>['items'][number];
/** The calendar shows at most this many scheduled posts (the soonest pages of the list). */
const MAX_POSTS = 1000;

async function scheduledPosts(): Promise<Post[]> {
  const posts: Post[] = [];
  for await (const post of api.posts.list({ status: 'scheduled', limit: 100 })) {
    posts.push(post);
    if (posts.length >= MAX_POSTS) break;
  }
  return posts;
}

/** Why a cancel failed, in words: a 409 means the post left `scheduled` (queued or further). */
function cancelMessage(error: unknown): string | null {
  if (error instanceof SvcApiError && error.status === 409)
    return 'This post can no longer be canceled: it has already been queued for publishing. Its outcome will appear in History.';
  return null;
}

export default function CalendarPage() {
  const timeZone = userTimeZone();
  const queryClient = useQueryClient();
  const [view, setView] = useState<'week' | 'month'>('week');
  const [anchor, setAnchor] = useState(() => dayKey(new Date(), timeZone));
  const [open, setOpen] = useState<Post | null>(null);
  const posts = useQuery({ queryKey: ['posts', 'scheduled'], queryFn: scheduledPosts });
  const cancel = useMutation({
    mutationFn: (id: string) => api.posts.cancel(id),
    onSuccess: () => setOpen(null),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['posts'] }),
  });
  const days = byDay(posts.data ?? [], (p) => p.scheduled_at, timeZone);
  const weeks = view === 'week' ? [weekDays(anchor)] : monthWeeks(anchor);
  const today = dayKey(new Date(), timeZone);
  const move = (direction: 1 | -1) =>
    setAnchor(view === 'week' ? shiftDays(anchor, 7 * direction) : shiftMonth(anchor, direction));
  const label = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${anchor}T12:00:00Z`),
  );

  return (
    <Stack>
      <PageTitle>Calendar</PageTitle>
      <Group>
        <SegmentedControl
          aria-label="View"
          value={view}
          onChange={(v) => setView(v as 'week' | 'month')}
          data={[
            { value: 'week', label: 'Week' },
            { value: 'month', label: 'Month' },
          ]}
        />
        <Button variant="default" onClick={() => move(-1)}>
          Previous
        </Button>
        <Button variant="default" onClick={() => setAnchor(today)}>
          Today
        </Button>
        <Button variant="default" onClick={() => move(1)}>
          Next
        </Button>
        <Text fw={600} aria-live="polite">
          {view === 'week' ? `Week of ${weeks[0]![0]}` : label} · times in {timeZone}
        </Text>
      </Group>
      <ErrorAlert error={posts.error} />
      {weeks.map((week) => (
        <SimpleGrid key={week[0]} cols={7} spacing="xs">
          {week.map((day) => (
            <Paper
              key={day}
              withBorder
              p="xs"
              mih={view === 'week' ? 160 : 90}
              bg={day === today ? 'indigo.0' : undefined}
              aria-label={day}
              component="section"
            >
              <Text
                size="xs"
                fw={700}
                c={day.slice(0, 7) === anchor.slice(0, 7) || view === 'week' ? 'dark' : 'gray.7'}
              >
                {new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', timeZone: 'UTC' }).format(
                  new Date(`${day}T12:00:00Z`),
                )}
              </Text>
              {(days.get(day) ?? []).map((post) => (
                <UnstyledButton
                  key={post.id}
                  onClick={() => setOpen(post)}
                  display="block"
                  w="100%"
                  data-testid="calendar-post"
                >
                  <Text size="xs" truncate>
                    {new Intl.DateTimeFormat(undefined, { timeStyle: 'short', timeZone }).format(
                      new Date(post.scheduled_at!),
                    )}{' '}
                    {post.text}
                  </Text>
                </UnstyledButton>
              ))}
            </Paper>
          ))}
        </SimpleGrid>
      ))}
      <Modal opened={open !== null} onClose={() => (setOpen(null), cancel.reset())} title="Scheduled post">
        {open && (
          <Stack>
            <Text style={{ whiteSpace: 'pre-wrap' }}>{open.text}</Text>
            <Text size="sm">
              {formatDateTime(open.scheduled_at)} · {open.providers.map(networkLabel).join(', ')}
            </Text>
            {cancelMessage(cancel.error) !== null ? (
              <Alert color="orange" role="alert">
                {cancelMessage(cancel.error)}
              </Alert>
            ) : (
              <ErrorAlert error={cancel.error} />
            )}
            <Button color="red" onClick={() => cancel.mutate(open.id)} loading={cancel.isPending}>
              Cancel this post
            </Button>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}
