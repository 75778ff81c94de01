import { Alert, Badge, Button, Group, Menu, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import type { ResponseData } from '@svc/sdk';
import { api } from '../../api/client.ts';
import { formatDateTime } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';
import { ByokPanel } from './byok-panel.tsx';
import { connect } from './connect.ts';
import { NETWORKS, networkLabel, type Network } from './networks.ts';

type Account = ResponseData<'listAccounts'>['items'][number];

const HEALTH_COLOR: Record<Account['health'], string> = {
  active: 'green',
  expiring: 'yellow',
  requires_reconnect: 'red',
  revoked: 'red',
};
const HEALTH_TEXT: Record<Account['health'], string> = {
  active: 'Active',
  expiring: 'Token expiring',
  requires_reconnect: 'Reconnect needed',
  revoked: 'Revoked',
};

export default function AccountsPage() {
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const accounts = useQuery({ queryKey: ['accounts'], queryFn: () => api.accounts.list({ limit: 100 }).page() });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['accounts'] });
  const start = useMutation({ mutationFn: ({ provider }: { provider: Network }) => connect(provider) });
  const refreshToken = useMutation({
    mutationFn: (id: string) => api.accounts.refresh(id),
    onSettled: () => void refresh(),
  });
  const disconnect = useMutation({
    mutationFn: (id: string) => api.accounts.remove(id),
    onSuccess: () => void refresh(),
  });
  const connected = params.get('account_id');
  const failed = params.get('error');
  return (
    <Stack>
      <PageTitle
        actions={
          <Menu>
            <Menu.Target>
              <Button loading={start.isPending}>Connect an account</Button>
            </Menu.Target>
            <Menu.Dropdown>
              {NETWORKS.map((network) => (
                <Menu.Item key={network.value} onClick={() => start.mutate({ provider: network.value })}>
                  {network.label}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
        }
      >
        Accounts
      </PageTitle>
      {connected !== null && (
        <Alert color="green" role="status">
          Account connected.
        </Alert>
      )}
      {failed !== null && (
        <Alert color="red" role="alert" title="The network did not connect the account">
          {params.get('error_description') ?? failed}
        </Alert>
      )}
      <ErrorAlert error={accounts.error ?? start.error ?? refreshToken.error ?? disconnect.error} />
      <Table striped aria-label="Connected accounts">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Network</Table.Th>
            <Table.Th>Account</Table.Th>
            <Table.Th>Health</Table.Th>
            <Table.Th>Token expires</Table.Th>
            <Table.Th>Connection</Table.Th>
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(accounts.data?.items ?? []).map((account) => (
            <Table.Tr key={account.id} data-testid={`account-${account.provider}`}>
              <Table.Td>{networkLabel(account.provider)}</Table.Td>
              <Table.Td>{account.handle ?? account.platform_account_id}</Table.Td>
              <Table.Td>
                <Badge color={HEALTH_COLOR[account.health]} variant="light">
                  {HEALTH_TEXT[account.health]}
                </Badge>
              </Table.Td>
              <Table.Td>
                {account.token_expires_at === null ? 'Does not expire' : formatDateTime(account.token_expires_at)}
              </Table.Td>
              <Table.Td>{account.connection_type === 'byok' ? 'Your token' : 'OAuth'}</Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  {account.connection_type === 'oauth' && (
                    <Button size="xs" variant="light" onClick={() => start.mutate({ provider: account.provider })}>
                      Reconnect
                    </Button>
                  )}
                  <Button size="xs" variant="default" onClick={() => refreshToken.mutate(account.id)}>
                    Check
                  </Button>
                  <Button size="xs" color="red" variant="outline" onClick={() => disconnect.mutate(account.id)}>
                    Disconnect
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {accounts.data?.items.length === 0 && <Text c="gray.7">No account connected yet.</Text>}
      <ByokPanel onConnected={() => void refresh()} />
    </Stack>
  );
}
