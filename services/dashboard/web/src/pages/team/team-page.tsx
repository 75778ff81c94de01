import { Alert, Button, Group, Select, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { auth, useSession, type Invite } from '../../api/session.ts';
import { CopyField } from '../../components/copy-field.tsx';
import { formatDateTime } from '../../components/dates.ts';
import { ErrorAlert } from '../../components/error-alert.tsx';
import { PageTitle } from '../../components/page-title.tsx';

/** Members of the active organization; owners invite (a single-use link with a role) and remove. */
export default function TeamPage() {
  const queryClient = useQueryClient();
  const session = useSession();
  const members = useQuery({ queryKey: ['members'], queryFn: auth.members });
  const [role, setRole] = useState('member');
  const [invite, setInvite] = useState<Invite | null>(null);
  const isOwner = session.data?.organizations.find((org) => org.id === session.data?.active_org_id)?.role === 'owner';
  const createInvite = useMutation({ mutationFn: () => auth.createInvite(role), onSuccess: setInvite });
  const remove = useMutation({
    mutationFn: auth.removeMember,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['members'] }),
  });
  return (
    <Stack>
      <PageTitle>Team</PageTitle>
      <ErrorAlert error={members.error ?? createInvite.error ?? remove.error} />
      {isOwner && (
        <Group align="end">
          <Select
            label="Role of the invited member"
            data={[
              { value: 'member', label: 'Member' },
              { value: 'owner', label: 'Owner' },
            ]}
            value={role}
            allowDeselect={false}
            onChange={(value) => setRole(value ?? 'member')}
          />
          <Button onClick={() => createInvite.mutate()} loading={createInvite.isPending}>
            Create invite link
          </Button>
        </Group>
      )}
      {invite !== null && (
        <Alert color="green" title={`Invite link for a new ${invite.role}`} role="status">
          <Text size="sm" mb="xs">
            Send this link to the person you invite; it works once, until {formatDateTime(invite.expires_at)}.
          </Text>
          <CopyField label="Invite link" value={invite.url} />
        </Alert>
      )}
      <Table striped aria-label="Members">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Email</Table.Th>
            <Table.Th>Role</Table.Th>
            <Table.Th>Joined</Table.Th>
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(members.data?.items ?? []).map((member) => (
            <Table.Tr key={member.user_id}>
              <Table.Td>{member.email}</Table.Td>
              <Table.Td>{member.role}</Table.Td>
              <Table.Td>{formatDateTime(member.joined_at)}</Table.Td>
              <Table.Td>
                {isOwner && member.user_id !== session.data?.user.id && (
                  <Button
                    size="xs"
                    color="red"
                    variant="outline"
                    onClick={() => remove.mutate(member.user_id)}
                    aria-label={`Remove ${member.email}`}
                  >
                    Remove
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
