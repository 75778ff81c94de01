import {
  Alert,
  Anchor,
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
import { Link } from 'react-router-dom';
import type { ResponseData } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { formatDateTime, userTimeZone } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { networkLabel } from '../accounts/networks.ts';
import { byDay, dayKey, monthWeeks, shiftDays, shiftMonth, weekDays } from './calendar-grid.ts';
import { explainCancelError } from './cancel-errors.ts';

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
  const refusal = explainCancelError(cancel.error);
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
            {refusal === null ? (
              <>
                <ErrorAlert error={cancel.error} />
                <Button color="red" onClick={() => cancel.mutate(open.id)} loading={cancel.isPending}>
                  Cancel this post
                </Button>
              </>
            ) : (
              // Canceling again could not succeed: the explanation takes the button's place.
              <Alert color="orange" role="alert" data-testid="cancel-refused">
                <Text size="sm">{refusal.message}</Text>
                {refusal.followInHistory && (
                  <Anchor component={Link} to={`/history?post=${encodeURIComponent(open.id)}`} size="sm">
                    Follow it in History
                  </Anchor>
                )}
              </Alert>
            )}
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}
