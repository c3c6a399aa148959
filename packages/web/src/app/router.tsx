import { lazy } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { AppLayout } from '../layout/AppLayout';
import { NotFound } from '../layout/NotFound';
import { RequireAdmin, RequireAuth, StatusGate } from './guards';
import { RouteError } from './RouteError';
import { RequireRoot } from '../features/audit/RequireRoot';

const HomePage = lazy(() => import('../features/home/HomePage'));
const AboutPage = lazy(() => import('../features/home/AboutPage'));
const SetupPage = lazy(() => import('../features/setup/SetupPage'));
const LoginPage = lazy(() => import('../features/auth/LoginPage'));
const TwoFactorLoginPage = lazy(() => import('../features/auth/TwoFactorLoginPage'));
const RegisterPage = lazy(() => import('../features/auth/RegisterPage'));
const ResetRequestPage = lazy(() => import('../features/auth/ResetRequestPage'));
const ResetConfirmPage = lazy(() => import('../features/auth/ResetConfirmPage'));
const OAuthCallbackPage = lazy(() => import('../features/auth/OAuthCallbackPage'));
const MePage = lazy(() => import('../features/me/MePage'));
const UsersPage = lazy(() => import('../features/users/UsersPage'));
const SettingsPage = lazy(() => import('../features/settings/SettingsPage'));
const ChannelsPage = lazy(() => import('../features/channels/ChannelsPage'));
const TokensPage = lazy(() => import('../features/tokens/TokensPage'));
const LogsPage = lazy(() => import('../features/logs/LogsPage'));
const PricingPage = lazy(() => import('../features/pricing/PricingPage'));
const DrawingLogsPage = lazy(() => import('../features/tasks/DrawingLogsPage'));
const MusicLogsPage = lazy(() => import('../features/tasks/MusicLogsPage'));
const InboxPage = lazy(() => import('../features/inbox/InboxPage'));
const PlaygroundPage = lazy(() => import('../features/playground/PlaygroundPage'));
const ChatPage = lazy(() => import('../features/chat/ChatPage'));
const Chat2LinkPage = lazy(() => import('../features/chat/Chat2LinkPage'));
const MessagesPage = lazy(() => import('../features/messages/MessagesPage'));
const RedemptionsPage = lazy(() => import('../features/redemption/RedemptionsPage'));
const WalletPage = lazy(() => import('../features/wallet/WalletPage'));
const DashboardPage = lazy(() => import('../features/dashboard/DashboardPage'));
const AuditPage = lazy(() => import('../features/audit/AuditPage'));

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
              { path: '/admin/users', element: <UsersPage /> },
              { path: '/user/edit/:id', element: <UsersPage /> },
              { path: '/user/edit', element: <UsersPage /> },
              { path: '/admin/settings', element: <SettingsPage /> },
              { path: '/admin/messages', element: <MessagesPage /> },
            ],
          },
          // Root only
          { element: <RequireRoot />, children: [{ path: '/admin/audit', element: <AuditPage /> }] },
          { path: '*', element: <NotFound /> },
        ],
      },
    ],
  },
];

export const router = createBrowserRouter(routes);
