import { createBrowserRouter, Navigate } from 'react-router-dom';
import { Layout } from './layout.tsx';
import { RouteError } from './route-error.tsx';

// Every page is its own chunk: the first page loads only the shell and the page it shows.
const page = (load: () => Promise<{ default: React.ComponentType }>) => async () => ({
  Component: (await load()).default,
});

export const router = createBrowserRouter([
  { path: '/signin', lazy: page(() => import('../pages/auth/sign-in-page.tsx')), errorElement: <RouteError /> },
  { path: '/signup', lazy: page(() => import('../pages/auth/sign-up-page.tsx')), errorElement: <RouteError /> },
  {
    path: '/invites/:token',
    lazy: page(() => import('../pages/auth/accept-invite-page.tsx')),
    errorElement: <RouteError />,
  },
  {
    path: '/',
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <Navigate to="/compose" replace /> },
      { path: 'accounts', lazy: page(() => import('../pages/accounts/accounts-page.tsx')) },
      { path: 'compose', lazy: page(() => import('../pages/compose/compose-page.tsx')) },
      { path: 'calendar', lazy: page(() => import('../pages/calendar/calendar-page.tsx')) },
      { path: 'history', lazy: page(() => import('../pages/history/history-page.tsx')) },
      { path: 'webhooks', lazy: page(() => import('../pages/webhooks/webhooks-page.tsx')) },
      { path: 'analytics', lazy: page(() => import('../pages/analytics/analytics-page.tsx')) },
      { path: 'billing', lazy: page(() => import('../pages/billing/billing-page.tsx')) },
      { path: 'api-keys', lazy: page(() => import('../pages/api-keys/api-keys-page.tsx')) },
      { path: 'team', lazy: page(() => import('../pages/team/team-page.tsx')) },
    ],
  },
]);
