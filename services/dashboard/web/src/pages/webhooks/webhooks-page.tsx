import { Alert, Badge, Button, Group, MultiSelect, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RequestBody, ResponseData } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { CopyField } from '../../components/copy-field.tsx';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { DeliveriesPanel } from './deliveries-panel.tsx';
import { EditWebhook } from './edit-webhook.tsx';

type Events = RequestBody<'createWebhook'>['events'];
const EVENTS: Events = ['post.published', 'post.failed', 'post.queued', 'connection.revoked'];
type Webhook = ResponseData<'listWebhooks'>[number];

const STATUS_TEXT: Record<Webhook['status'], string> = {
  active: 'Active',
  disabled: 'Paused',
  auto_paused: 'Paused after failures',
};

/** Webhook endpoints: create (secret shown once), edit, pause/resume, rotate, delete, test, deliveries. */
export default function WebhooksPage() {
  const queryClient = useQueryClient();
  const hooks = useQuery({ queryKey: ['webhooks'], queryFn: () => api.webhooks.list().page() });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['webhooks'] });
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['post.published', 'post.failed']);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const create = useMutation({
    mutationFn: () => api.webhooks.create({ url: url.trim(), events: events as Events }),
    onSuccess: (hook) => (setSecret({ url: hook.url, secret: hook.signing_secret }), setUrl(''), void refresh()),
  });
  const setActive = useMutation({
    mutationFn: (h: Webhook) => api.webhooks.update(h.id, { active: h.status !== 'active' }),
    onSuccess: () => void refresh(),
  });
  const rotate = useMutation({
    mutationFn: (id: string) => api.webhooks.rotateSecret(id),
    onSuccess: (hook) => setSecret({ url: hook.url, secret: hook.signing_secret }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.webhooks.remove(id),
    onSuccess: () => (setSelected(null), void refresh()),
  });
  const test = useMutation({
    mutationFn: (id: string) => api.webhooks.test(id),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['deliveries'] }),
  });

  return (
    <Stack>
      <PageTitle>Webhooks</PageTitle>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Group align="end">
          <TextInput
            label="Endpoint URL"
            type="url"
            required
            w={360}
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
          />
          <MultiSelect label="Events" data={EVENTS} value={events} onChange={setEvents} w={360} />
          <Button type="submit" loading={create.isPending}>
            Add endpoint
          </Button>
        </Group>
      </form>
      <ErrorAlert
        error={hooks.error ?? create.error ?? setActive.error ?? rotate.error ?? remove.error ?? test.error}
      />
      {secret !== null && (
        <Alert
          color="green"
          role="status"
          title={`Signing secret of ${secret.url}`}
          withCloseButton
          onClose={() => setSecret(null)}
        >
          <Text size="sm" mb="xs">
            Copy it now: it is shown only once. After a rotation the old secret keeps signing for 24 hours.
          </Text>
          <CopyField label="Signing secret" value={secret.secret} />
        </Alert>
      )}
      {test.data && (
        <Alert color={test.data.status_code >= 200 && test.data.status_code < 300 ? 'green' : 'orange'} role="status">
          Test event sent: the endpoint answered {test.data.status_code}
          {test.data.error && ` (${test.data.error})`}.
        </Alert>
      )}
      <Table striped aria-label="Webhook endpoints">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>URL</Table.Th>
            <Table.Th>Events</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(hooks.data ?? []).map((hook) => (
            <Table.Tr key={hook.id} data-testid="webhook-row">
              <Table.Td>{hook.url}</Table.Td>
              <Table.Td>{hook.events.join(', ')}</Table.Td>
              <Table.Td>
                <Badge color={hook.status === 'active' ? 'green' : 'orange'} variant="light">
                  {STATUS_TEXT[hook.status]}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Button size="xs" variant="light" onClick={() => setSelected(hook.id)}>
                    Deliveries
                  </Button>
                  <Button size="xs" variant="default" onClick={() => test.mutate(hook.id)}>
                    Send test
                  </Button>
                  <Button size="xs" variant="default" onClick={() => setEditing(hook)}>
                    Edit
                  </Button>
                  <Button size="xs" variant="default" onClick={() => setActive.mutate(hook)}>
                    {hook.status === 'active' ? 'Pause' : 'Resume'}
                  </Button>
                  <Button size="xs" variant="default" onClick={() => rotate.mutate(hook.id)}>
                    Rotate secret
                  </Button>
                  <Button size="xs" color="red" variant="outline" onClick={() => remove.mutate(hook.id)}>
                    Delete
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {hooks.data?.length === 0 && <Text c="gray.7">No endpoint yet.</Text>}
      <EditWebhook webhook={editing} onClose={() => setEditing(null)} onSaved={() => void refresh()} />
      {selected !== null && <DeliveriesPanel webhookId={selected} />}
    </Stack>
  );
}
