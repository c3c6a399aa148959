import { Alert, Button, Result, Skeleton } from 'antd';
import { lazy, Suspense, useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, Route, Routes, useNavigate, useParams } from 'react-router';
import { OrgStatus } from '@tollway/shared';
import { PageFallback } from '../../layout/AppLayout';
import { useOrg } from './api';
import { OrgContext, orgView } from './context';
import { setCurrentOrg } from './current';
import './organizations.css';

const OverviewPage = lazy(() => import('./pages/OverviewPage'));
const MembersPage = lazy(() => import('./pages/MembersPage'));
const TeamsPage = lazy(() => import('./pages/TeamsPage'));
const TokensPage = lazy(() => import('./pages/TokensPage'));
const BudgetsPage = lazy(() => import('./pages/BudgetsPage'));
const SpendPage = lazy(() => import('./pages/SpendPage'));
const LogsPage = lazy(() => import('./pages/LogsPage'));

/**
 * /app/org/:id/<page>: loads the organization (GET /api/org/:id), makes it the console's current one (the switcher
 * and the sidebar follow) and shows the page; not a member reads as not found (the server answers 404).
 */
export default function OrgPages() {
  const { t } = useTranslation('organizations');
  const navigate = useNavigate();
  const id = Number(useParams().id);
  const valid = Number.isInteger(id) && id > 0;
  const org = useOrg(valid ? id : 0);
  const data = org.data;
  useEffect(() => {
    if (data) setCurrentOrg({ id: data.id, name: data.name, role: data.role });
  }, [data]);
  const view = useMemo(() => (data ? orgView(data) : undefined), [data]);

  if (!valid || org.isError) {
    return (
      <Result
        status="warning"
        title={t('common.loadFailed')}
        extra={[
          <Button key="retry" onClick={() => void org.refetch()}>
            {t('common.retry')}
          </Button>,
          <Button
            key="back"
            type="primary"
            onClick={() => {
              setCurrentOrg(undefined);
              navigate('/app/tokens');
            }}
          >
            {t('common.back')}
          </Button>,
        ]}
      />
    );
  }
  if (!view) return <Skeleton active paragraph={{ rows: 8 }} />;
  return (
    <OrgContext.Provider value={view}>
      <div className="tw-page tw-org" data-testid="org-page" data-org-id={view.org.id} data-org-role={view.org.role}>
        {view.org.status !== OrgStatus.Enabled && (
          <Alert type="warning" showIcon title={t('common.disabled')} style={{ marginBottom: 16 }} />
        )}
        <Suspense fallback={<PageFallback />}>
          <Routes>
            <Route path="overview" element={<OverviewPage />} />
            <Route path="members" element={<MembersPage />} />
            <Route path="teams" element={<TeamsPage />} />
            <Route path="tokens" element={<TokensPage />} />
            <Route path="budgets" element={<BudgetsPage />} />
            <Route path="spend" element={<SpendPage />} />
            <Route path="logs" element={<LogsPage />} />
            <Route path="*" element={<Navigate to="overview" replace />} />
          </Routes>
        </Suspense>
      </div>
    </OrgContext.Provider>
  );
}
