import type { Generated } from 'kysely';

/** A user's passkey (WebAuthn credential); migrations/0025_passkeys.ts. Flags are 0/1, times epoch seconds. */
export interface PasskeyCredentialsTable {
  id: Generated<number>;
  user_id: number;
  /** The credential id in standard base64 (new-api's encoding). */
  credential_id: string;
  /** The COSE public key in standard base64. */
  public_key: string;
  attestation_type: string;
  aaguid: string;
  sign_count: number;
  clone_warning: number;
  user_present: number;
  user_verified: number;
  backup_eligible: number;
  backup_state: number;
  /** JSON list of transports ('internal', 'usb', 'hybrid', ...), '' when the browser named none. */
  transports: string;
  /** 'platform', 'cross-platform' or ''. */
  attachment: string;
  last_used_at: number;
  created_at: number;
  updated_at: number;
}
