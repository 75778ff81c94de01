import { Button, Group, Select, Stack, Table, TagsInput, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { connect } from './connect.ts';
import { NETWORKS, networkLabel, type Network } from './networks.ts';

/** Bring your own: an OAuth app of the organization's (then connect through it), or a token. */
export function ByokPanel({ onConnected }: { onConnected: () => void }) {
  const queryClient = useQueryClient();
  const apps = useQuery({ queryKey: ['oauth-apps'], queryFn: () => api.oauthApps.list().page() });
  const [app, setApp] = useState({
    provider: 'x' as Network,
    name: '',
    client_id: '',
    client_secret: '',
    scopes: [] as string[],
  });
  const [token, setToken] = useState({ provider: 'x' as Network, platform_account_id: '', access_token: '' });
  const createApp = useMutation({
    mutationFn: () => api.oauthApps.create(app),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['oauth-apps'] }),
  });
  const connectWithApp = useMutation({
    mutationFn: (a: { provider: Network; id: string }) => connect(a.provider, a.id),
  });
  const createAccount = useMutation({
    mutationFn: () =>
      api.accounts.create({
        provider: token.provider,
        platform_account_id: token.platform_account_id,
        credentials: { access_token: token.access_token },
      }),
    onSuccess: onConnected,
  });
  return (
    <Stack mt="lg">
      <Title order={3}>Your own OAuth apps</Title>
      <ErrorAlert error={apps.error ?? createApp.error ?? connectWithApp.error} />
      <Table aria-label="OAuth apps">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Network</Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Client id</Table.Th>
            <Table.Th>Redirect URI to register</Table.Th>
            <Table.Th>Connect</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(apps.data ?? []).map((a) => (
            <Table.Tr key={a.id}>
              <Table.Td>{networkLabel(a.provider)}</Table.Td>
              <Table.Td>{a.name}</Table.Td>
              <Table.Td>{a.client_id}</Table.Td>
              <Table.Td>
                <code>{a.redirect_uri}</code>
              </Table.Td>
              <Table.Td>
                <Button
                  size="xs"
                  variant="light"
                  onClick={() => connectWithApp.mutate({ provider: a.provider, id: a.id })}
                >
                  Connect with {a.name}
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          createApp.mutate();
        }}
      >
        <Group align="end">
          <Select
            label="App network"
            data={[...NETWORKS]}
            value={app.provider}
            allowDeselect={false}
            onChange={(v) => setApp({ ...app, provider: (v ?? 'x') as Network })}
          />
          <TextInput
            label="App name"
            required
            value={app.name}
            onChange={(e) => setApp({ ...app, name: e.currentTarget.value })}
          />
          <TextInput
            label="Client id"
            required
            value={app.client_id}
            onChange={(e) => setApp({ ...app, client_id: e.currentTarget.value })}
          />
          <TextInput
            label="Client secret"
            type="password"
            required
            value={app.client_secret}
            onChange={(e) => setApp({ ...app, client_secret: e.currentTarget.value })}
          />
          <TagsInput label="Scopes" value={app.scopes} onChange={(scopes) => setApp({ ...app, scopes })} />
          <Button type="submit" loading={createApp.isPending}>
            Add app
          </Button>
        </Group>
      </form>
      <Title order={3}>Connect with a token</Title>
      <ErrorAlert error={createAccount.error} />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          createAccount.mutate();
        }}
      >
        <Group align="end">
          <Select
            label="Token network"
            data={[...NETWORKS]}
            value={token.provider}
            allowDeselect={false}
            onChange={(v) => setToken({ ...token, provider: (v ?? 'x') as Network })}
          />
          <TextInput
            label="Account id on the network"
            required
            value={token.platform_account_id}
            onChange={(e) => setToken({ ...token, platform_account_id: e.currentTarget.value })}
          />
          <TextInput
            label="Access token"
            type="password"
            required
            value={token.access_token}
            onChange={(e) => setToken({ ...token, access_token: e.currentTarget.value })}
          />
          <Button type="submit" loading={createAccount.isPending}>
            Connect
          </Button>
        </Group>
      </form>
    </Stack>
  );
}
