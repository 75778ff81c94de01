// The dashboard's own endpoints (/auth/*): sign-up, sign-in, the session view, organizations,
// invites and members. They are not part of the public API, so they are plain fetches here.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { csrfHeaders, setCsrfToken } from './csrf.ts';

export interface SessionView {
  user: { id: string; email: string };
  organizations: { id: string; name: string; role: 'owner' | 'member' | string }[];
  active_org_id: string | null;
  csrf_token: string;
}

export interface Member {
  user_id: string;
  email: string;
  role: string;
  joined_at: string;
}

export interface Invite {
  id: string;
  role: string;
  token: string;
  url: string;
  expires_at: string;
}

/** An /auth answer that was not a success, with the API's error code and message. */
export class AuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function authCall<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: object): Promise<T> {
  const res = await fetch(`/auth${path}`, {
    method,
    credentials: 'same-origin',
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...csrfHeaders() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status === 204) return undefined as T;
  const json = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  if (!res.ok)
    throw new AuthError(res.status, json.error?.code ?? `http_${res.status}`, json.error?.message ?? res.statusText);
  return json as T;
}

function remember(view: SessionView): SessionView {
  setCsrfToken(view.csrf_token);
  return view;
}

export const auth = {
  me: async (): Promise<SessionView | null> => {
    try {
      return remember(await authCall<SessionView>('GET', '/me'));
    } catch (error) {
      if (error instanceof AuthError && error.status === 401) {
        setCsrfToken(null);
        return null;
      }
      throw error;
    }
  },
  signUp: async (body: { email: string; password: string; organization_name?: string; invite_token?: string }) =>
    remember(await authCall<SessionView>('POST', '/signup', body)),
  signIn: async (body: { email: string; password: string }) =>
    remember(await authCall<SessionView>('POST', '/signin', body)),
  signOut: () => authCall<undefined>('POST', '/signout'),
  switchOrg: async (orgId: string) => remember(await authCall<SessionView>('POST', '/switch-org', { org_id: orgId })),
  acceptInvite: async (token: string) => remember(await authCall<SessionView>('POST', '/invites/accept', { token })),
  createInvite: (role: string) => authCall<Invite>('POST', '/invites', { role }),
  members: () => authCall<{ items: Member[] }>('GET', '/members'),
  removeMember: (userId: string) => authCall<undefined>('DELETE', `/members/${encodeURIComponent(userId)}`),
};

export const SESSION_KEY = ['session'] as const;

export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: auth.me, staleTime: 60_000 });
}

/** After sign-in, sign-out or an organization switch: every cached answer belonged to the old session. */
export function useSessionChanged() {
  const queryClient = useQueryClient();
  return (view: SessionView | null) => {
    queryClient.removeQueries();
    queryClient.setQueryData(SESSION_KEY, view);
  };
}
