import { MoonOutlined, SunOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { setTheme, useTheme } from '../lib/theme';
import { TipButton } from '../components/TipButton';

/** Light/dark switch, stored locally under theme-mode. */
export function ThemeToggle() {
  const mode = useTheme();
  const { t } = useTranslation('shell');
  const label = mode === 'dark' ? t('header.toLight') : t('header.toDark');
  return (
    <TipButton
      label={label}
      type="text"
      shape="circle"
      data-testid="theme-toggle"
      data-theme-mode={mode}
      icon={mode === 'dark' ? <SunOutlined /> : <MoonOutlined />}
      onClick={() => setTheme(mode === 'dark' ? 'light' : 'dark')}
    />
  );
}
