import { Link } from 'react-router';
import type { Status } from '../lib/status';

/** Logo and system name from the status payload. */
export function Brand({ status, hideName }: { status: Status | undefined; hideName?: boolean }) {
  const name = status?.system_name || 'Tollway';
  return (
    <Link to="/" className="tw-brand" aria-label={name}>
      <img
        src={status?.logo || '/logo.svg'}
        alt=""
        className="tw-brand-logo"
        onError={(e) => (e.currentTarget.src = '/logo.svg')}
      />
      <span className="tw-brand-name" data-testid="system-name" hidden={hideName}>
        {name}
      </span>
    </Link>
  );
}
