import { Alert, Anchor, Button, Group, Loader, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useNavigate, useParams } from 'react-router-dom';
import { describeError } from '../../api/errors.ts';
import { auth, useSession, useSessionChanged } from '../../api/session.ts';
import { AuthFrame } from './auth-frame.tsx';
import { AuthLink } from './auth-link.tsx';

/** An invite link: signed in, accept it; signed out, sign in or sign up first and come back. */
export default function AcceptInvitePage() {
  const { token = '' } = useParams();
  const session = useSession();
  const changed = useSessionChanged();
  const navigate = useNavigate();
  const accept = useMutation({
    mutationFn: () => auth.acceptInvite(token),
    onSuccess: (view) => {
      changed(view);
      void navigate('/team');
    },
  });
  const back = encodeURIComponent(`/invites/${token}`);
  return (
    <AuthFrame title="Join an organization">
      {session.isPending ? (
        <Loader aria-label="Loading" />
      ) : session.data == null ? (
        <Stack>
          <Text>Sign in or create an account to accept this invitation.</Text>
          <Group>
            <Button component={AuthLink} to={`/signup?next=${back}`}>
              Sign up
            </Button>
            <Anchor component={AuthLink} to={`/signin?next=${back}`}>
              Sign in
            </Anchor>
          </Group>
        </Stack>
      ) : (
        <Stack>
          {accept.isError && (
            <Alert color="red" role="alert">
              {describeError(accept.error)}
            </Alert>
          )}
          <Text>You are signed in as {session.data.user.email}.</Text>
          <Button onClick={() => accept.mutate()} loading={accept.isPending}>
            Accept invitation
          </Button>
        </Stack>
      )}
    </AuthFrame>
  );
}
