import { useQueryClient } from '@tanstack/react-query';
import { orgUpdateBody } from '@tollway/shared';
import { App, Button, Card, Form, Input, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSubmit } from '../../../lib/useSubmit';
import { ORG_KEY, updateOrg } from '../api';
import { useOrgView } from '../context';

/**
 * PUT /api/org/:id with the organization's MCP tool lists (owners and admins): `<server>__<tool>` patterns that
 * every token of the organization must pass on /mcp, besides its own lists (docs/operating/mcp.md).
 */
export function OrgMcpCard() {
  const { t } = useTranslation('organizations');
  const { org } = useOrgView();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [allow, setAllow] = useState(org.mcp_allow_tools);
  const [deny, setDeny] = useState(org.mcp_deny_tools);
  const [error, setError] = useState<string>();
  const { loading, run } = useSubmit();
  useEffect(() => {
    setAllow(org.mcp_allow_tools);
    setDeny(org.mcp_deny_tools);
  }, [org.mcp_allow_tools, org.mcp_deny_tools]);

  const save = () => {
    const parsed = orgUpdateBody.safeParse({ mcp_allow_tools: allow, mcp_deny_tools: deny });
    if (!parsed.success) {
      setError(t('mcp.tooLong'));
      return;
    }
    setError(undefined);
    void run(async () => {
      await updateOrg(org.id, parsed.data);
      void message.success(t('overview.saved'));
      await queryClient.invalidateQueries({ queryKey: ORG_KEY });
    });
  };

  return (
    <Card title={t('mcp.title')} data-testid="org-mcp-card">
      <Typography.Paragraph type="secondary">{t('mcp.hint')}</Typography.Paragraph>
      <Form layout="vertical" onFinish={save}>
        <Form.Item label={t('mcp.allow')} htmlFor="org-mcp-allow">
          <Input
            id="org-mcp-allow"
            value={allow}
            placeholder="docs__*, search__query"
            onChange={(e) => setAllow(e.target.value)}
            data-testid="org-mcp-allow"
          />
        </Form.Item>
        <Form.Item label={t('mcp.deny')} htmlFor="org-mcp-deny">
          <Input
            id="org-mcp-deny"
            value={deny}
            placeholder="*__delete_*"
            onChange={(e) => setDeny(e.target.value)}
            data-testid="org-mcp-deny"
          />
        </Form.Item>
        {error && <Typography.Paragraph type="danger">{error}</Typography.Paragraph>}
        <Button type="primary" htmlType="submit" loading={loading} data-testid="org-mcp-save">
          {t('common.save')}
        </Button>
      </Form>
    </Card>
  );
}
