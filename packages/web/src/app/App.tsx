import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider, theme as antTheme, type ThemeConfig } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { RouterProvider } from 'react-router';
import { useTheme, type ThemeMode } from '../lib/theme';
import '../styles/global.css';
import { ErrorToasts } from './ErrorToasts';
import { router } from './router';
import { useDateLocale } from './useDateLocale';

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });

function themeConfig(mode: ThemeMode): ThemeConfig {
  const dark = mode === 'dark';
  const surface = dark ? '#15171d' : '#ffffff';
  return {
    algorithm: dark ? antTheme.darkAlgorithm : antTheme.defaultAlgorithm,
    token: {
      colorPrimary: '#1677ff',
      borderRadius: 8,
      colorBgLayout: dark ? '#0b0d12' : '#f5f7fb',
      colorBgContainer: surface,
      colorBgElevated: dark ? '#1c1f26' : '#ffffff',
    },
    components: {
      Layout: {
        headerBg: dark ? 'rgba(21,23,29,0.88)' : 'rgba(255,255,255,0.88)',
        headerHeight: 56,
        headerPadding: '0 16px',
        siderBg: surface,
        bodyBg: dark ? '#0b0d12' : '#f5f7fb',
        footerBg: 'transparent',
      },
      Menu: {
        itemBg: 'transparent',
        subMenuItemBg: 'transparent',
        horizontalItemSelectedBg: 'transparent',
        itemBorderRadius: 8,
      },
      Card: { borderRadiusLG: 12 },
    },
  };
}

export function App() {
  const mode = useTheme();
  const { i18n } = useTranslation();
  const language = i18n.language === 'en' ? 'en' : 'zh';
  useDateLocale(language);
  useEffect(() => {
    document.documentElement.dataset.theme = mode;
  }, [mode]);
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  const config = useMemo(() => themeConfig(mode), [mode]);
  return (
    <ConfigProvider locale={language === 'en' ? enUS : zhCN} theme={config} button={{ autoInsertSpace: false }}>
      <AntApp>
        <ErrorToasts />
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </AntApp>
    </ConfigProvider>
  );
}
