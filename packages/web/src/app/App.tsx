import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { RouterProvider } from 'react-router';
import { useTheme } from '../lib/theme';
import '../styles/global.css';
import { ErrorToasts } from './ErrorToasts';
import { router } from './router';
import { themeConfig } from './themeConfig';
import { useDateLocale } from './useDateLocale';

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });

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
