import { CopyOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { ORG_INVITATION_TTL_MAX, ORG_ROLES, orgInvitationBody, type OrgRole } from '@tollway/shared';
import { Alert, App, Button, Form, Input, Modal, Radio, Select, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCopy } from '../../../components/useCopy';
import { useSubmit } from '../../../lib/useSubmit';
import { createInvitation, orgKey } from '../api';
import { useOrgView } from '../context';

const DAY_S = 86_400;

/** The server answers the console's path alone when no ServerAddress is set: the link then opens on this origin. */
const absoluteLink = (link: string) => (link.startsWith('/') ? `${window.location.origin}${link}` : link);
const TTL_DAYS = [1, 3, 7, 14, 30].filter((d) => d * DAY_S <= ORG_INVITATION_TTL_MAX);
const DEFAULT_TTL_DAYS = 7;

/**
 * POST /api/org/:id/invitations: by link (the link is shown once, to copy) or by e-mail, with the role granted on
 * acceptance and how long the invitation stays valid. Only an owner may invite an owner.
 */
export function InviteModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation('organizations');
  const { org, can } = useOrgView();
  const { message } = App.useApp();
  const copy = useCopy();
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<'link' | 'email'>('link');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<OrgRole>('member');
  const [days, setDays] = useState(DEFAULT_TTL_DAYS);
  const [link, setLink] = useState<string>();
  const [emailError, setEmailError] = useState(false);
  const { loading, run } = useSubmit();
  const roles = ORG_ROLES.filter((r) => r !== 'owner' || can('org.own'));

  const close = () => {
    setLink(undefined);
    setEmail('');
    setEmailError(false);
    onClose();
  };
  const create = () => {
    const parsed = orgInvitationBody.safeParse({
      role,
      ttl_seconds: days * DAY_S,
      ...(mode === 'email' ? { email } : {}),
    });
    if (!parsed.success || (mode === 'email' && !email.trim())) {
      setEmailError(true);
      return;
    }
    setEmailError(false);
    void run(async () => {
      const created = await createInvitation(org.id, parsed.data);
      void queryClient.invalidateQueries({ queryKey: orgKey(org.id, 'invitations') });
      if (mode === 'email') {
        void message.success(t('invite.sent', { email: parsed.data.email }));
        close();
      } else setLink(absoluteLink(created.link));
    });
  };

  return (
    <Modal
      open={open}
      title={t('invite.title')}
      onCancel={close}
      destroyOnHidden
      footer={
        link ? (
          <Button type="primary" onClick={close} data-testid="invite-done">
            {t('invite.done')}
          </Button>
        ) : (
          <Button type="primary" loading={loading} onClick={create} data-testid="invite-create">
            {t('invite.create')}
          </Button>
        )
      }
    >
      {link ? (
        <Space direction="vertical" style={{ width: '100%' }}>
          <Alert type="success" showIcon title={t('invite.link')} />
          <Typography.Paragraph className="tw-org-key" data-testid="invite-link" copyable={false}>
            {link}
          </Typography.Paragraph>
          <Button icon={<CopyOutlined />} onClick={() => void copy(link, t('invite.copied'))} data-testid="invite-copy">
            {t('invite.copy')}
          </Button>
        </Space>
      ) : (
        <Form layout="vertical">
          <Form.Item label={t('invite.mode')}>
            <Radio.Group
              value={mode}
              onChange={(e) => setMode(e.target.value as 'link' | 'email')}
              optionType="button"
              options={[
                { value: 'link', label: t('invite.byLink') },
                { value: 'email', label: t('invite.byEmail') },
              ]}
              data-testid="invite-mode"
            />
          </Form.Item>
          {mode === 'email' && (
            <Form.Item
              label={t('invite.email')}
              htmlFor="invite-email"
              validateStatus={emailError ? 'error' : undefined}
              help={emailError ? t('invite.emailBad') : undefined}
            >
              <Input
                id="invite-email"
                type="email"
                value={email}
                placeholder={t('invite.emailPh')}
                onChange={(e) => setEmail(e.target.value)}
                data-testid="invite-email"
              />
            </Form.Item>
          )}
          <Form.Item label={t('invite.role')}>
            <Select
              aria-label={t('invite.role')}
              value={role}
              onChange={setRole}
              options={roles.map((r) => ({ value: r, label: t(`role.${r}`) }))}
              data-testid="invite-role"
            />
          </Form.Item>
          <Form.Item label={t('invite.ttl')}>
            <Select
              aria-label={t('invite.ttl')}
              value={days}
              onChange={setDays}
              options={TTL_DAYS.map((d) => ({ value: d, label: t('invite.days', { count: d }) }))}
              data-testid="invite-ttl"
            />
          </Form.Item>
        </Form>
      )}
    </Modal>
  );
}
