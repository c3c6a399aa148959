import { useTranslation } from 'react-i18next';
import { StatusPage } from './StatusPage';

/** Shown instead of a page the signed-in user's role may not open (the page and its API calls never start). */
export function Forbidden() {
  const { t } = useTranslation('shell');
  return <StatusPage status="403" testId="forbidden" title={t('forbidden.title')} hint={t('forbidden.hint')} />;
}
