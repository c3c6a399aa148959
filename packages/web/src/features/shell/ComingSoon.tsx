import { RocketOutlined } from '@ant-design/icons';
import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** Placeholder for routes whose feature lands later. `name` is a key of the shell `side`/`nav` strings. */
export function ComingSoon({ name }: { name: string }) {
  const { t } = useTranslation('shell');
  return (
    <div className="tw-center-page" data-testid="coming-soon">
      <Result
        icon={<RocketOutlined className="tw-result-icon" />}
        title={t('comingSoon.title')}
        subTitle={t('comingSoon.desc', { name: t(name) })}
        extra={
          <Link to="/">
            <Button type="primary">{t('comingSoon.back')}</Button>
          </Link>
        }
      />
    </div>
  );
}
