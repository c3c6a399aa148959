import { Link } from 'react-router';
import { DEFAULT_LOGO } from '../lib/logo';
import type { Status } from '../lib/status';

/** Logo and system name from the status payload. */
export function Brand({ status, hideName }: { status: Status | undefined; hideName?: boolean }) {
  const name = status?.system_name || 'Tollway';
  return (
    <Link to="/" className="tw-brand" aria-label={name}>
      <img
        src={status?.logo || DEFAULT_LOGO}
        alt=""
        className="tw-brand-logo"
        onError={(e) => (e.currentTarget.src = DEFAULT_LOGO)}
      />
      <span className="tw-brand-name" data-testid="system-name" hidden={hideName}>
        {name}
      </span>
    </Link>
  );
}
