import { Alert, Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { describeError } from '../../api/errors.ts';
import { auth, useSessionChanged } from '../../api/session.ts';
import { AuthFrame } from './auth-frame.tsx';
import { AuthLink } from './auth-link.tsx';
import { safeNext } from './sign-in-page.tsx';

export default function SignUpPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const changed = useSessionChanged();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [organization, setOrganization] = useState('');
  const next = params.get('next');
  // Signing up from an invite link joins that organization instead of creating one.
  const inviteToken = next?.startsWith('/invites/') ? next.slice('/invites/'.length) : undefined;
  const signUp = useMutation({
    mutationFn: () =>
      auth.signUp({
        email,
        password,
        ...(inviteToken === undefined ? {} : { invite_token: inviteToken }),
        ...(organization.trim() === '' || inviteToken !== undefined ? {} : { organization_name: organization.trim() }),
      }),
    onSuccess: (view) => {
      changed(view);
      void navigate(inviteToken === undefined ? safeNext(next) : '/compose');
    },
  });
  return (
    <AuthFrame title="Create your account">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          signUp.mutate();
        }}
      >
        <Stack>
          {signUp.isError && (
            <Alert color="red" role="alert">
              {describeError(signUp.error)}
            </Alert>
          )}
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <PasswordInput
            label="Password"
            description="12 characters or more"
            autoComplete="new-password"
            required
            minLength={12}
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          {inviteToken === undefined && (
            <TextInput
              label="Organization name"
              value={organization}
              onChange={(e) => setOrganization(e.currentTarget.value)}
            />
          )}
          <Button type="submit" loading={signUp.isPending}>
            Sign up
          </Button>
          <Text size="sm">
            Already have an account?{' '}
            <Anchor component={AuthLink} to={`/signin${next === null ? '' : `?next=${encodeURIComponent(next)}`}`}>
              Sign in
            </Anchor>
          </Text>
        </Stack>
      </form>
    </AuthFrame>
  );
}
