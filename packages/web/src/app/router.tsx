import type { ReactElement } from 'react';
import { createBrowserRouter, matchRoutes, type RouteObject } from 'react-router';
import { ORG_CONSOLE_BASE, ORG_INVITE_PATH } from '@tollway/shared';
import { getStoredUser } from '../lib/storage';
import { AppLayout } from '../layout/AppLayout';
import { NotFound } from '../layout/NotFound';
import { RequireAdmin, RequireAuth, StatusGate } from './guards';
import { RouteError } from './RouteError';
import { lazyPage } from '../i18n/lazyPage';
import { RequireRoot } from '../features/audit/RequireRoot';

// Each page fetches, with its code, every namespace its code asks for (packages/web/test/page-namespaces.test.ts): one
// it reached later would suspend the page and swap it for the loading fallback for a moment.
const HomePage = lazyPage(() => import('../features/home/HomePage'), 'home');
const AboutPage = lazyPage(() => import('../features/home/AboutPage'), 'home');
const SetupPage = lazyPage(() => import('../features/setup/SetupPage'), 'setup');
const LoginPage = lazyPage(() => import('../features/auth/LoginPage'), 'auth');
const TwoFactorLoginPage = lazyPage(() => import('../features/auth/TwoFactorLoginPage'), 'auth', 'twofa', 'passkey');
const RegisterPage = lazyPage(() => import('../features/auth/RegisterPage'), 'auth', 'customOAuth');
const ResetRequestPage = lazyPage(() => import('../features/auth/ResetRequestPage'), 'auth');
const ResetConfirmPage = lazyPage(() => import('../features/auth/ResetConfirmPage'), 'auth');
const OAuthCallbackPage = lazyPage(() => import('../features/auth/OAuthCallbackPage'), 'auth');
const MePage = lazyPage(() => import('../features/me/MePage'), 'me', 'twofa', 'auth', 'passkey', 'customOAuth');
const UsersPage = lazyPage(() => import('../features/users/UsersPage'), 'users', 'twofa', 'subscriptions', 'passkey');
// `errors`: the option forms word a shared schema's failed checks with the refusal codes' texts.
const SettingsPage = lazyPage(
  () => import('../features/settings/SettingsPage'),
  'settings',
  'twofa',
  'errors',
  'customOAuth',
);
const ChannelsPage = lazyPage(() => import('../features/channels/ChannelsPage'), 'channels', 'passkey');
const TokensPage = lazyPage(() => import('../features/tokens/TokensPage'), 'tokens');
const LogsPage = lazyPage(() => import('../features/logs/LogsPage'), 'logs');
const PricingPage = lazyPage(() => import('../features/pricing/PricingPage'), 'pricing');
const DrawingLogsPage = lazyPage(() => import('../features/tasks/DrawingLogsPage'), 'tasks');
const MusicLogsPage = lazyPage(() => import('../features/tasks/MusicLogsPage'), 'tasks');
const InboxPage = lazyPage(() => import('../features/inbox/InboxPage'), 'inbox');
const PlaygroundPage = lazyPage(() => import('../features/playground/PlaygroundPage'), 'playground');
const ChatPage = lazyPage(() => import('../features/chat/ChatPage'));
const Chat2LinkPage = lazyPage(() => import('../features/chat/Chat2LinkPage'));
const MessagesPage = lazyPage(() => import('../features/messages/MessagesPage'), 'messages');
const RedemptionsPage = lazyPage(() => import('../features/redemption/RedemptionsPage'), 'redemption');
const SubscriptionsPage = lazyPage(() => import('../features/subscriptions/SubscriptionsPage'), 'subscriptions');
const WalletPage = lazyPage(
  () => import('../features/wallet/WalletPage'),
  'wallet',
  'me',
  'redemption',
  'subscriptions',
);
const DashboardPage = lazyPage(() => import('../features/dashboard/DashboardPage'), 'dashboard');
const OrgPages = lazyPage(() => import('../features/organizations/OrgPages'), 'organizations');
const OrgInvitePage = lazyPage(() => import('../features/organizations/InvitePage'), 'organizations');
const OrgAdminPage = lazyPage(() => import('../features/organizations/admin/OrgAdminPage'), 'orgAdmin');
const McpPage = lazyPage(() => import('../features/mcp/McpPage'), 'mcp');
const AuditPage = lazyPage(() => import('../features/audit/AuditPage'), 'audit');
// The documentation is in English only (as its Markdown): no texts to load.
const DocsPage = lazyPage(() => import('../features/docs/DocsPage'));

/** Route table of the console: public pages, the user area under /app, administration under /admin. */
export const routes: RouteObject[] = [
  {
    element: <AppLayout />,
    errorElement: <RouteError />,
    children: [
      {
        element: <StatusGate />,
        children: [
          // Public
          { path: '/', element: <HomePage /> },
          { path: '/setup', element: <SetupPage /> },
          { path: '/login', element: <LoginPage /> },
          { path: '/login/2fa', element: <TwoFactorLoginPage /> },
          { path: '/register', element: <RegisterPage /> },
          { path: '/reset', element: <ResetRequestPage /> },
          { path: '/user/reset', element: <ResetConfirmPage /> },
          { path: '/oauth/:provider', element: <OAuthCallbackPage /> },
          { path: '/about', element: <AboutPage /> },
          { path: '/pricing', element: <PricingPage /> },
          { path: '/docs/*', element: <DocsPage /> },
          { path: '/chat/:id?', element: <ChatPage /> },
          // Login required
          {
            element: <RequireAuth />,
            children: [
              { path: '/chat2link', element: <Chat2LinkPage /> },
              { path: '/playground', element: <PlaygroundPage /> },
              { path: '/app/tokens', element: <TokensPage /> },
              { path: '/app/me', element: <MePage /> },
              { path: '/app/wallet', element: <WalletPage /> },
              { path: '/app/logs/api-usage', element: <LogsPage /> },
              { path: '/app/logs/drawing', element: <DrawingLogsPage /> },
              { path: '/app/logs/tasks', element: <MusicLogsPage /> },
              { path: '/app/dashboard', element: <DashboardPage /> },
              { path: '/app/inbox/:id?', element: <InboxPage /> },
              { path: ORG_INVITE_PATH, element: <OrgInvitePage /> },
              { path: `${ORG_CONSOLE_BASE}/:id/*`, element: <OrgPages /> },
            ],
          },
          // Admin only
          {
            element: <RequireAdmin />,
            children: [
              { path: '/admin/channels', element: <ChannelsPage /> },
              { path: '/channel/edit/:id', element: <ChannelsPage /> },
              { path: '/channel/add', element: <ChannelsPage /> },
              { path: '/admin/coupons', element: <RedemptionsPage /> },
              { path: '/admin/mcp', element: <McpPage /> },
              { path: '/admin/organizations', element: <OrgAdminPage /> },
              { path: '/admin/subscriptions', element: <SubscriptionsPage /> },
              { path: '/admin/users', element: <UsersPage /> },
              { path: '/user/edit/:id', element: <UsersPage /> },
              { path: '/user/edit', element: <UsersPage /> },
              { path: '/admin/settings', element: <SettingsPage /> },
            ],
          },
          // The spec sends a non-admin from the message management page home (not to the 403 page).
          {
            element: <RequireAdmin nonAdmin="home" />,
            children: [{ path: '/admin/messages', element: <MessagesPage /> }],
          },
          // Root only
          { element: <RequireRoot />, children: [{ path: '/admin/audit', element: <AuditPage /> }] },
          { path: '*', element: <NotFound /> },
        ],
      },
    ],
  },
];

/**
 * The page the browser opened starts loading with the entry instead of after the status answered and the route
 * rendered; a signed-in page only when a user is stored (else the visitor goes to the login page).
 */
function preloadOpenedPage(): void {
  const matches = matchRoutes(routes, window.location) ?? [];
  const types = matches.map(
    (m) => (m.route.element as ReactElement | undefined)?.type as { preload?: () => Promise<unknown> } | undefined,
  );
  const guarded = types.some((t) => t === RequireAuth || t === RequireAdmin || t === RequireRoot);
  if (guarded && !getStoredUser()) return;
  // A failure shows when the route renders (its error screen), not here.
  for (const t of types) t?.preload?.().catch(() => undefined);
}
preloadOpenedPage();

export const router = createBrowserRouter(routes);
