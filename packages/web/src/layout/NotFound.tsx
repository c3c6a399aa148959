import { useTranslation } from 'react-i18next';
import { StatusPage } from './StatusPage';

/** Shown for any unknown path: the page does not exist, check the address. */
export function NotFound() {
  const { t } = useTranslation('common');
  return <StatusPage status="404" testId="not-found" title={t('notFound.title')} hint={t('notFound.hint')} />;
}
