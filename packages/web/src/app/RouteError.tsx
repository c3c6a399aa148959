import { Button } from 'antd';
import { lazy, Suspense, type ComponentProps } from 'react';
import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';

type ScreenProps = ComponentProps<typeof import('../components/ErrorScreen').ErrorScreen>;

/** The same screen without antd's Result, for when even the error screen's code cannot load (a new build replaced it). */
function PlainErrorScreen({ title, detail, action, testid }: ScreenProps) {
  return (
    <div className="tw-center-page tw-plain-error" data-testid={testid}>
      <h3>{title}</h3>
      <p>{detail}</p>
      {action}
    </div>
  );
}

// Loaded when a route fails, so the entry does not carry antd's Result.
const ErrorScreen = lazy(() =>
  import('../components/ErrorScreen').then(
    (m) => ({ default: m.ErrorScreen }),
    () => ({ default: PlainErrorScreen }),
  ),
);

/** Last-resort error screen for a route that failed to render or load its code. */
export function RouteError() {
  const error = useRouteError();
  const { t } = useTranslation('shell');
  const message = error instanceof Error ? error.message : String(error ?? '');
  const screen: ScreenProps = {
    testid: 'route-error',
    title: t('status.loadFailed'),
    detail: message,
    action: (
      <Button type="primary" onClick={() => window.location.reload()}>
        {t('status.retry')}
      </Button>
    ),
  };
  return (
    <Suspense fallback={null}>
      <ErrorScreen {...screen} />
    </Suspense>
  );
}
