import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import type { Page, UserManageAction } from '@tollway/shared';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { ApiFailure } from '../../lib/api';
import { PageHeader } from '../../components/PageHeader';
import { changeQuota, fetchUser, fetchUsers, manageUser, USERS_KEY, type AdminUser, type UserQuery } from './api';
import { AddQuotaModal } from './components/AddQuotaModal';
import { AddUserDrawer } from './components/AddUserDrawer';
import { EditUserDrawer } from './components/EditUserDrawer';
import { UsersTable } from './components/UsersTable';
import { UsersToolbar } from './components/UsersToolbar';
import { UserSubscriptionsModal } from './components/UserSubscriptionsModal';
import { usePageSize } from '../../lib/paging';
import { ListCard } from '../../components/ListCard';

/**
 * User management. Mounted at /admin/users, and at /user/edit/:id and /user/edit, where it
 * opens the edit drawer for :id or the add drawer on load.
 */
export default function UsersPage() {
  const { t } = useTranslation('users');
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const { id: routeId } = useParams<{ id?: string }>();
  const onEditRoute = pathname.startsWith('/user/edit');

  const [pageSize, setPageSize] = usePageSize('users-page-size');
  const [page, setPage] = useState(1);
  const [keywordDraft, setKeywordDraft] = useState('');
  const [filter, setFilter] = useState({ keyword: '', group: '' });
  const [addOpen, setAddOpen] = useState(false);
  const [editId, setEditId] = useState<number | null>(null);
  const [quotaUser, setQuotaUser] = useState<AdminUser | null>(null);
  const [quotaSaving, setQuotaSaving] = useState(false);
  const [subsUser, setSubsUser] = useState<AdminUser | null>(null);

  useEffect(() => {
    if (!onEditRoute) return;
    const id = Number(routeId);
    if (routeId && Number.isInteger(id) && id > 0) setEditId(id);
    else if (!routeId) setAddOpen(true);
  }, [onEditRoute, routeId]);

  const query: UserQuery = { page, pageSize, ...filter };
  const listKey = [...USERS_KEY, query] as const;
  const list = useQuery({ queryKey: listKey, queryFn: () => fetchUsers(query), placeholderData: keepPreviousData });
  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: USERS_KEY }), [queryClient]);

  const leaveEditRoute = () => {
    if (onEditRoute) navigate('/admin/users', { replace: true });
  };

  const onManage = async (user: AdminUser, action: UserManageAction) => {
    try {
      const res = await manageUser(user.id, action);
      queryClient.setQueryData<Page<AdminUser>>(listKey, (old) =>
        old
          ? {
              ...old,
              items: old.items.map((u) => {
                if (u.id !== user.id) return u;
                const next = { ...u, status: res?.status ?? u.status, role: res?.role ?? u.role };
                return action === 'delete' ? { ...next, DeletedAt: new Date().toISOString() } : next;
              }),
            }
          : old,
      );
      void message.success(t('toast.done'));
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
    }
  };

  const rowQuota = useQuery({
    queryKey: ['user', quotaUser?.id, 'quota'],
    queryFn: () => fetchUser(quotaUser!.id),
    enabled: quotaUser !== null,
    gcTime: 0,
  });
  const saveRowQuota = async (delta: number) => {
    if (!quotaUser) return;
    setQuotaSaving(true);
    try {
      // A change, not a total: a charge made while the dialog was open is kept.
      await changeQuota(quotaUser.id, delta);
      void message.success(t('toast.updated'));
      setQuotaUser(null);
      void refresh();
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
    } finally {
      setQuotaSaving(false);
    }
  };

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <ListCard>
        <UsersToolbar
          keyword={keywordDraft}
          group={filter.group}
          loading={list.isFetching}
          onKeywordChange={(v) => {
            setKeywordDraft(v);
            if (v === '' && filter.keyword !== '') {
              setFilter((f) => ({ ...f, keyword: '' }));
              setPage(1);
            }
          }}
          onSearch={() => {
            setFilter((f) => ({ ...f, keyword: keywordDraft.trim() }));
            setPage(1);
            if (keywordDraft.trim() === filter.keyword) void refresh();
          }}
          onGroupChange={(group) => {
            setFilter({ keyword: keywordDraft.trim(), group });
            setPage(1);
          }}
          onAdd={() => setAddOpen(true)}
          onRefresh={() => void refresh()}
        />
        <UsersTable
          items={list.data?.items ?? []}
          loading={list.isFetching}
          page={page}
          pageSize={pageSize}
          total={list.data?.total ?? 0}
          onPageChange={(p, size) => {
            if (size !== pageSize) {
              setPageSize(size);
              setPage(1);
            } else setPage(p);
          }}
          onManage={onManage}
          onEdit={(u) => setEditId(u.id)}
          onAddQuota={(u) => setQuotaUser(u)}
          onSubscriptions={(u) => setSubsUser(u)}
        />
      </ListCard>
      <AddUserDrawer
        open={addOpen}
        onClose={() => {
          setAddOpen(false);
          leaveEditRoute();
        }}
        onCreated={() => {
          setAddOpen(false);
          leaveEditRoute();
          void refresh();
        }}
      />
      <EditUserDrawer
        userId={editId}
        onClose={() => {
          setEditId(null);
          leaveEditRoute();
        }}
        onSaved={() => {
          setEditId(null);
          leaveEditRoute();
          void refresh();
        }}
      />
      <AddQuotaModal
        open={quotaUser !== null}
        username={quotaUser?.username}
        current={rowQuota.data?.quota}
        confirmLoading={quotaSaving}
        onCancel={() => setQuotaUser(null)}
        onOk={(_next, delta) => void saveRowQuota(delta)}
      />
      <UserSubscriptionsModal user={subsUser} onClose={() => setSubsUser(null)} onChanged={() => void refresh()} />
    </>
  );
}
