import { createBrowserRouter, Navigate } from 'react-router-dom';
import AcceptInvitePage from '../pages/auth/accept-invite-page.tsx';
import SignInPage from '../pages/auth/sign-in-page.tsx';
import SignUpPage from '../pages/auth/sign-up-page.tsx';
import { Layout } from './layout.tsx';
import { RouteError } from './route-error.tsx';

// The signed-out pages are part of the first chunk. They are where a visitor without a session
// lands, and they lead to one another: as lazy routes, following "Sign up" left the sign-in form on
// screen, still taking input, until the sign-up chunk arrived, and then replaced it with an empty
// form, so whatever was typed meanwhile was lost. Bundled, the next form is there as the link is
// followed.
//
// Every other page is its own chunk: the first page loads only the shell and the page it shows.
const page = (load: () => Promise<{ default: React.ComponentType }>) => async () => ({
  Component: (await load()).default,
});

export const router = createBrowserRouter([
  { path: '/signin', Component: SignInPage, errorElement: <RouteError /> },
  { path: '/signup', Component: SignUpPage, errorElement: <RouteError /> },
  { path: '/invites/:token', Component: AcceptInvitePage, errorElement: <RouteError /> },
  {
    path: '/',
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <Navigate to="/compose" replace /> },
      { path: 'accounts', lazy: page(() => import('../pages/accounts/accounts-page.tsx')) },
      { path: 'compose', lazy: page(() => import('../pages/compose/compose-page.tsx')) },
      { path: 'drafts', lazy: page(() => import('../pages/drafts/drafts-page.tsx')) },
      { path: 'queue', lazy: page(() => import('../pages/queue/queue-page.tsx')) },
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
