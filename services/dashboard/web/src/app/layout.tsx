import { AppShell, Burger, Button, Center, Group, Loader, NavLink, Select, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Suspense } from 'react';
import { Navigate, NavLink as RouterLink, Outlet, useLocation } from 'react-router-dom';
import { auth, useSession, useSessionChanged } from '../api/session.ts';

const PAGES = [
  ['/compose', 'Compose'],
  ['/drafts', 'Drafts'],
  ['/queue', 'Queue'],
  ['/calendar', 'Calendar'],
  ['/history', 'History'],
  ['/accounts', 'Accounts'],
  ['/analytics', 'Analytics'],
  ['/webhooks', 'Webhooks'],
  ['/api-keys', 'API keys'],
  ['/team', 'Team'],
  ['/billing', 'Usage and billing'],
] as const;

/** The signed-in frame: navigation, the organization switch and sign-out around the page. */
export function Layout() {
  const session = useSession();
  const changed = useSessionChanged();
  const location = useLocation();
  const [opened, { toggle, close }] = useDisclosure();
  if (session.isPending)
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  if (session.isError) throw session.error;
  const view = session.data;
  if (view === null) return <Navigate to={`/signin?next=${encodeURIComponent(location.pathname)}`} replace />;

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={1} size="h4">
              Social Publishing
            </Title>
          </Group>
          <Group>
            <Select
              aria-label="Organization"
              data={view.organizations.map((org) => ({ value: org.id, label: `${org.name} (${org.role})` }))}
              value={view.active_org_id}
              allowDeselect={false}
              onChange={(orgId) => {
                if (orgId !== null && orgId !== view.active_org_id) void auth.switchOrg(orgId).then(changed);
              }}
            />
            <Text size="sm" c="gray.7" visibleFrom="md">
              {view.user.email}
            </Text>
            <Button variant="default" onClick={() => void auth.signOut().then(() => changed(null))}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" component="nav" aria-label="Pages">
        {PAGES.map(([to, label]) => (
          <NavLink
            key={to}
            component={RouterLink}
            to={to}
            label={label}
            onClick={close}
            active={location.pathname === to}
            variant="filled"
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense fallback={<Loader aria-label="Loading" />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
