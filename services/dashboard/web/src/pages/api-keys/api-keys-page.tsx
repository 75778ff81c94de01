import { Alert, Badge, Button, Group, Radio, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ResponseData } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { CopyField } from '../../components/copy-field.tsx';
import { formatDateTime } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { DEFAULT_SCOPE, SCOPE_ORDER, SCOPES, toScope, type ApiKeyScope } from './scopes.ts';

/**
 * API keys: create with a scope (the key is shown once, with a copy button), list without secrets,
 * revoke.
 */
export default function ApiKeysPage() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => api.apiKeys.list().page() });
  const [name, setName] = useState('');
  const [scope, setScope] = useState<ApiKeyScope>(DEFAULT_SCOPE);
  const [created, setCreated] = useState<ResponseData<'createApiKey'> | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['api-keys'] });
  const create = useMutation({
    mutationFn: () => api.apiKeys.create({ name: name.trim(), scope }),
    onSuccess: (key) => {
      setCreated(key);
      setName('');
      setScope(DEFAULT_SCOPE);
      void refresh();
    },
  });
  const revoke = useMutation({ mutationFn: (id: string) => api.apiKeys.revoke(id), onSuccess: () => void refresh() });
  return (
    <Stack>
      <PageTitle>API keys</PageTitle>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Stack gap="sm" maw={560}>
          <TextInput label="Key name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Radio.Group label="Scope" value={scope} onChange={(value) => setScope(toScope(value))}>
            <Stack gap="xs" mt="xs">
              {SCOPE_ORDER.map((value) => (
                <Radio key={value} value={value} label={SCOPES[value].label} description={SCOPES[value].description} />
              ))}
            </Stack>
          </Radio.Group>
          <Group>
            <Button type="submit" loading={create.isPending}>
              Create key
            </Button>
          </Group>
        </Stack>
      </form>
      <ErrorAlert error={create.error ?? revoke.error ?? keys.error} />
      {created !== null && (
        <Alert color="green" title={`Key "${created.name}" created`} role="status">
          <Text size="sm" mb="xs">
            Scope: {SCOPES[created.scope].label}. Copy it now: it is shown only once.
          </Text>
          <CopyField label="API key" value={created.key} />
        </Alert>
      )}
      <Table striped aria-label="API keys">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Prefix</Table.Th>
            <Table.Th>Scope</Table.Th>
            <Table.Th>Created</Table.Th>
            <Table.Th>Last used</Table.Th>
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(keys.data ?? []).map((key) => (
            <Table.Tr key={key.id} data-testid="api-key-row">
              <Table.Td>{key.name}</Table.Td>
              <Table.Td>
                <code>{key.prefix}…</code>
              </Table.Td>
              <Table.Td>
                <Badge color={key.scope === 'full' ? 'indigo' : 'gray'} data-testid="api-key-scope">
                  {SCOPES[key.scope].label}
                </Badge>
              </Table.Td>
              <Table.Td>{formatDateTime(key.created_at)}</Table.Td>
              <Table.Td>{formatDateTime(key.last_used_at)}</Table.Td>
              <Table.Td>
                <Button
                  size="xs"
                  // The 9th shade: the 8th falls below 4.5:1 on a striped row.
                  color="red.9"
                  variant="outline"
                  onClick={() => revoke.mutate(key.id)}
                  aria-label={`Revoke ${key.name}`}
                >
                  Revoke
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {keys.data?.length === 0 && <Text c="gray.7">No API keys yet.</Text>}
    </Stack>
  );
}
