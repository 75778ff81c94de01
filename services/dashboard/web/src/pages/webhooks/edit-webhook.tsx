import { Button, Group, Modal, MultiSelect, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { RequestBody, ResponseData } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';

type Webhook = ResponseData<'listWebhooks'>[number];
type Events = RequestBody<'updateWebhook'>['events'];
const EVENTS: NonNullable<Events> = ['post.published', 'post.failed', 'post.queued', 'connection.revoked'];

/** Change an endpoint's URL and events. */
export function EditWebhook({
  webhook,
  onClose,
  onSaved,
}: {
  webhook: Webhook | null;
  onClose: () => void;
  onSaved: () => void;
}) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  useEffect(() => {
    if (webhook === null) return;
    setUrl(webhook.url);
    setEvents(webhook.events);
  }, [webhook]);
  const save = useMutation({
    mutationFn: () => api.webhooks.update(webhook!.id, { url, events: events as Events }),
    onSuccess: () => (onSaved(), onClose()),
  });
  return (
    <Modal opened={webhook !== null} onClose={onClose} title="Edit endpoint">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Stack>
          <ErrorAlert error={save.error} />
          <TextInput
            label="Endpoint URL"
            type="url"
            required
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
          />
          <MultiSelect label="Events" data={EVENTS} value={events} onChange={setEvents} />
          <Group justify="end">
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
