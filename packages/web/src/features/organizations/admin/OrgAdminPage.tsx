import { ReloadOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { isRoot, type Organization } from '@tollway/shared';
import { App, Button, Flex } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ListCard } from '../../../components/ListCard';
import { PageHeader } from '../../../components/PageHeader';
import { SearchButton } from '../../../components/SearchButton';
import { SearchInput } from '../../../components/SearchInput';
import { attempt } from '../../../lib/attempt';
import { usePaging } from '../../../lib/paging';
import { useStoredUser } from '../../../lib/session';
import { ORG_KEY } from '../api';
import { orgPath, setCurrentOrg } from '../current';
import { fetchAllOrgs, ORG_ADMIN_KEY, setOrgReseller, setOrgStatus } from './api';
import { OrgAdminTable } from './OrgAdminTable';

const SEARCH_STYLE = { flex: '1 1 220px', minWidth: 0, maxWidth: 360 };

/**
 * /admin/organizations (system administrators): every organization (GET /api/org/all) with its wallet and members;
 * enable or disable one, let it set its own prices (root), or open its console (administrators act as its owner).
 */
export default function OrgAdminPage() {
  const { t } = useTranslation('orgAdmin');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const root = isRoot(useStoredUser()?.role);
  const { page, pageSize, setPage, pagination } = usePaging('org-admin-page-size', (r) => t('pageInfo', r));
  const [draft, setDraft] = useState('');
  const [keyword, setKeyword] = useState('');
  const query = { page, pageSize, keyword };
  const list = useQuery({
    queryKey: [...ORG_ADMIN_KEY, query],
    queryFn: () => fetchAllOrgs(query),
    placeholderData: keepPreviousData,
  });
  // Every organization query: the list, and the organization's own pages should they be open.
  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: ORG_KEY }), [queryClient]);

  const search = (value = draft) => {
    const next = value.trim();
    setKeyword(next);
    setPage(1);
    if (next === keyword) void refresh();
  };

  const onStatus = (org: Organization, enabled: boolean) =>
    attempt(async () => {
      await setOrgStatus(org.id, enabled);
      void message.success(enabled ? t('toast.enabled', { name: org.name }) : t('toast.disabled', { name: org.name }));
      await refresh();
    });
  const onReseller = (org: Organization, reseller: boolean) =>
    attempt(async () => {
      await setOrgReseller(org.id, reseller);
      void message.success(
        reseller ? t('toast.resellerOn', { name: org.name }) : t('toast.resellerOff', { name: org.name }),
      );
      await refresh();
    });
  const onOpen = (org: Organization) => {
    // An administrator acts as the organization's owner; its pages confirm the role when they load it.
    setCurrentOrg({ id: org.id, name: org.name, role: 'owner' });
    navigate(orgPath(org.id));
  };

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <ListCard>
        <Flex wrap gap={8} justify="space-between" style={{ marginBottom: 16 }}>
          <Flex wrap gap={8} style={{ flex: '1 1 420px', minWidth: 0 }}>
            <SearchInput
              value={draft}
              onChange={(v) => {
                setDraft(v);
                if (v === '' && keyword !== '') search('');
              }}
              onSearch={() => search()}
              placeholder={t('search')}
              testid="org-admin-search"
              style={SEARCH_STYLE}
            />
            <SearchButton busy={list.isFetching} onSearch={() => search()} testid="org-admin-search-submit" />
          </Flex>
          <Button
            icon={<ReloadOutlined />}
            onClick={() => void refresh()}
            aria-label={t('common:action.refresh')}
            data-testid="org-admin-refresh"
          />
        </Flex>
        <OrgAdminTable
          items={list.data?.items ?? []}
          loading={list.isFetching}
          pagination={pagination(list.data?.total ?? 0)}
          root={root}
          onStatus={onStatus}
          onReseller={onReseller}
          onOpen={onOpen}
        />
      </ListCard>
    </>
  );
}
