import { TranslationOutlined } from '@ant-design/icons';
import { Button, Dropdown } from 'antd';
import { useTranslation } from 'react-i18next';
import { setLanguage } from '../i18n/index';

/** Chinese/English language menu. */
export function LanguageMenu() {
  const { t, i18n } = useTranslation('shell');
  const current = i18n.language === 'en' ? 'en' : 'zh';
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [current],
        items: [
          { key: 'zh', label: <span data-testid="lang-zh">中文</span> },
          { key: 'en', label: <span data-testid="lang-en">English</span> },
        ],
        onClick: ({ key }) => setLanguage(key as 'zh' | 'en'),
      }}
    >
      <Button
        type="text"
        shape="circle"
        aria-label={t('header.language')}
        data-testid="lang-menu"
        icon={<TranslationOutlined />}
      />
    </Dropdown>
  );
}
