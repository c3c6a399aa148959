import { ResetCredentialButton, type ResetCredentialProps } from '../ResetCredentialButton';

/** User management: removes a user's passkey (the server applies the tier rules and says when there is none). */
export function ResetPasskeyButton(props: ResetCredentialProps) {
  return (
    <ResetCredentialButton
      {...props}
      url={`/api/user/${props.user.id}/reset_passkey`}
      namespace="passkey"
      testid="passkey"
    />
  );
}
