import { Alert, Anchor, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { describeError } from '../../api/errors.ts';
import { auth, useSessionChanged } from '../../api/session.ts';
import { AuthFrame } from './auth-frame.tsx';
import { AuthLink } from './auth-link.tsx';

/** Where to go after signing in: a path inside the dashboard only (never another site). */
export function safeNext(next: string | null): string {
  return next !== null && next.startsWith('/') && !next.startsWith('//') ? next : '/compose';
}

export default function SignInPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const changed = useSessionChanged();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: () => auth.signIn({ email, password }),
    onSuccess: (view) => {
      changed(view);
      void navigate(safeNext(params.get('next')));
    },
  });
  return (
    <AuthFrame title="Sign in">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          signIn.mutate();
        }}
      >
        <Stack>
          {signIn.isError && (
            <Alert color="red" role="alert">
              {describeError(signIn.error)}
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
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          <Button type="submit" loading={signIn.isPending}>
            Sign in
          </Button>
          <Text size="sm">
            No account yet?{' '}
            <Anchor
              component={AuthLink}
              to={`/signup${params.has('next') ? `?next=${encodeURIComponent(params.get('next')!)}` : ''}`}
            >
              Sign up
            </Anchor>
          </Text>
        </Stack>
      </form>
    </AuthFrame>
  );
}
