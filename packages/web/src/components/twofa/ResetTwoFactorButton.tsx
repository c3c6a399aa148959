import { ResetCredentialButton, type ResetCredentialProps } from '../ResetCredentialButton';

/**
 * User management: turns off a user's two-factor sign-in (the server applies the tier rules; `disabled` where it
 * would refuse, the caller saying why).
 */
export function ResetTwoFactorButton(props: ResetCredentialProps) {
  return <ResetCredentialButton {...props} url={`/api/user/${props.user.id}/2fa`} namespace="twofa" testid="2fa" />;
}
