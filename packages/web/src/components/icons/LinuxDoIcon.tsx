/**
 * The LinuxDO forum's mark, drawn here: a disc in three horizontal bands (dark, light, amber) with a thin ring, so
 * it reads on light and dark buttons alike. Sized like an Ant Design icon (1em, current line box).
 */
export function LinuxDoIcon() {
  return (
    <span className="anticon" role="img" aria-hidden="true" data-testid="linuxdo-icon">
      <svg viewBox="0 0 16 16" width="1em" height="1em" focusable="false">
        <defs>
          <clipPath id="tw-linuxdo-disc">
            <circle cx="8" cy="8" r="7.5" />
          </clipPath>
        </defs>
        <g clipPath="url(#tw-linuxdo-disc)">
          <rect x="0" y="0" width="16" height="5.6" fill="#1c1c1e" />
          <rect x="0" y="5.6" width="16" height="4.8" fill="#f2f2f2" />
          <rect x="0" y="10.4" width="16" height="5.6" fill="#ffb003" />
        </g>
        <circle cx="8" cy="8" r="7.5" fill="none" stroke="#8c8c8c" strokeWidth="0.6" />
      </svg>
    </span>
  );
}
