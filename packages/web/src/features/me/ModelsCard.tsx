import { AppstoreOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Empty, Skeleton, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiGet } from '../../lib/api';
import { useCopy } from '../../components/useCopy';
import { IconTitle } from '../../components/IconTitle';

const COLLAPSED = 10;

/** GET /api/user/models; collapsed after 10 entries; a click copies the name. */
export function ModelsCard() {
  const { t } = useTranslation('me');
  const copy = useCopy();
  const [expanded, setExpanded] = useState(false);
  const { data, isPending } = useQuery({
    queryKey: ['user', 'models'],
    queryFn: () => apiGet<string[]>('/api/user/models'),
  });
  const models = Array.isArray(data) ? data : [];
  const shown = expanded ? models : models.slice(0, COLLAPSED);
  return (
    <Card
      title={
        <IconTitle icon={AppstoreOutlined}>
          {t('models.title')}
          {models.length > 0 && <Tag style={{ marginLeft: 8 }}>{models.length}</Tag>}
        </IconTitle>
      }
      data-testid="me-models"
    >
      {isPending ? (
        <Skeleton active paragraph={{ rows: 2 }} title={false} />
      ) : models.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('models.empty')} />
      ) : (
        <>
          <div className="tw-models">
            {shown.map((m) => (
              <Tag
                key={m}
                color="processing"
                style={{ cursor: 'pointer' }}
                onClick={() => void copy(m, t('models.copied'))}
              >
                {m}
              </Tag>
            ))}
          </div>
          {models.length > COLLAPSED && (
            <Button
              type="link"
              style={{ paddingInline: 0, marginTop: 8 }}
              onClick={() => setExpanded(!expanded)}
              data-testid="me-models-toggle"
            >
              {expanded ? t('models.less') : t('models.more', { count: models.length })}
            </Button>
          )}
        </>
      )}
    </Card>
  );
}
