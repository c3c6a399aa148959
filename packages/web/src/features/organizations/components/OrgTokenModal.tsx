import { useQueryClient } from '@tanstack/react-query';
import { orgCan, orgTokenBody, type OrgToken } from '@tollway/shared';
import { Form, Input, InputNumber, Select, Switch, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ActionModal } from '../../../components/ActionModal';
import { useStoredUser } from '../../../lib/session';
import { useSubmit } from '../../../lib/useSubmit';
import { createOrgToken, orgKey, useMembers, useTeams } from '../api';
import { useOrgView } from '../context';

/**
 * POST /api/org/:id/tokens: a token for oneself, or (tokens.all) for a member; in one of the holder's teams or none.
 * `onCreated` gets the answer, whose key is the only unmasked one.
 */
export function OrgTokenModal({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (tok: OrgToken) => void;
}) {
  const { t } = useTranslation('organizations');
  const { org, can } = useOrgView();
  const me = useStoredUser();
  const queryClient = useQueryClient();
  const members = useMembers(org.id, open);
  const teams = useTeams(org.id, open);
  const forOthers = can('tokens.all');
  const [name, setName] = useState('');
  const [memberId, setMemberId] = useState<number>(me?.id ?? 0);
  const [teamId, setTeamId] = useState(0);
  const [unlimited, setUnlimited] = useState(true);
  const [cap, setCap] = useState<number | null>(0);
  const [error, setError] = useState<string>();
  const { loading, run } = useSubmit();
  // A viewer holds no tokens (the server refuses them).
  const holders = (members.data ?? []).filter((m) => orgCan(m.role, 'tokens.own'));
  const holderTeams = (teams.data ?? []).filter((tm) => tm.member_ids.includes(memberId));
  // A system admin who is not a member issues to a member: the first one is preselected.
  useEffect(() => {
    if (open && holders.length && !holders.some((m) => m.user_id === memberId)) setMemberId(holders[0]!.user_id);
  }, [open, holders, memberId]);

  const save = () => {
    const parsed = orgTokenBody.safeParse({
      name,
      ...(forOthers && memberId !== me?.id ? { member_id: memberId } : {}),
      team_id: teamId,
      unlimited_quota: unlimited,
      remain_quota: unlimited ? 0 : (cap ?? 0),
    });
    if (!parsed.success) {
      setError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      return;
    }
    setError(undefined);
    return run(async () => {
      const tok = await createOrgToken(org.id, parsed.data);
      await queryClient.invalidateQueries({ queryKey: orgKey(org.id) });
      setName('');
      onCreated(tok);
    });
  };

  return (
    <ActionModal
      open={open}
      title={t('tokens.add')}
      okText={t('tokens.add')}
      okTestid="org-token-save"
      okProps={{ disabled: !name.trim() }}
      loading={loading}
      onOk={async () => save()}
      onClose={onClose}
      destroyOnHidden
    >
      <Form layout="vertical">
        <Form.Item label={t('tokens.name')} htmlFor="org-token-name" required>
          <Input
            id="org-token-name"
            value={name}
            maxLength={50}
            onChange={(e) => setName(e.target.value)}
            data-testid="org-token-name"
          />
        </Form.Item>
        {forOthers && (
          <Form.Item label={t('tokens.forMember')}>
            <Select
              aria-label={t('tokens.forMember')}
              value={memberId}
              onChange={(v) => {
                setMemberId(v);
                setTeamId(0);
              }}
              showSearch={{ optionFilterProp: 'label' }}
              options={holders.map((m) => ({
                value: m.user_id,
                label: m.user_id === me?.id ? `${m.username} (${t('tokens.self')})` : m.display_name || m.username,
              }))}
              data-testid="org-token-member"
            />
          </Form.Item>
        )}
        <Form.Item label={t('tokens.team')}>
          <Select
            aria-label={t('tokens.team')}
            value={teamId}
            onChange={setTeamId}
            options={[
              { value: 0, label: t('tokens.noTeam') },
              ...holderTeams.map((tm) => ({ value: tm.id, label: tm.name })),
            ]}
            data-testid="org-token-team"
          />
        </Form.Item>
        <Form.Item label={t('tokens.unlimitedLabel')}>
          <Switch
            checked={unlimited}
            onChange={setUnlimited}
            aria-label={t('tokens.unlimitedLabel')}
            data-testid="org-token-unlimited"
          />
        </Form.Item>
        {!unlimited && (
          <Form.Item label={t('tokens.quota')} htmlFor="org-token-cap">
            <InputNumber
              id="org-token-cap"
              min={0}
              precision={0}
              value={cap}
              onChange={setCap}
              style={{ width: '100%' }}
            />
          </Form.Item>
        )}
        {error && <Typography.Text type="danger">{error}</Typography.Text>}
      </Form>
    </ActionModal>
  );
}
