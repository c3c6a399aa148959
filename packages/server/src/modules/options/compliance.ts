import { PAYMENT_COMPLIANCE_TERMS_VERSION } from '@tollway/shared';
import type { OptionsService } from '../../core/options/service.js';
import type { AuthUser } from '../../core/auth-user.js';

/**
 * new-api's payment compliance acknowledgment: root confirms the terms (v1) once, with who, when and from where; its
 * console keeps plan management and payment settings locked until then. Tollway records it the same way and gates
 * nothing on it (payments work once configured, as before).
 */
export function isComplianceConfirmed(options: OptionsService): boolean {
  return (
    options.bool('payment_setting.compliance_confirmed') &&
    options.get('payment_setting.compliance_terms_version') === PAYMENT_COMPLIANCE_TERMS_VERSION
  );
}

/** Records the acknowledgment; answers as new-api does. */
export async function confirmCompliance(options: OptionsService, user: AuthUser, ip: string) {
  const now = Math.floor(Date.now() / 1000);
  await options.setMany({
    'payment_setting.compliance_confirmed': true,
    'payment_setting.compliance_terms_version': PAYMENT_COMPLIANCE_TERMS_VERSION,
    'payment_setting.compliance_confirmed_at': now,
    'payment_setting.compliance_confirmed_by': user.id,
    'payment_setting.compliance_confirmed_ip': ip,
  });
  return { confirmed: true, terms_version: PAYMENT_COMPLIANCE_TERMS_VERSION, confirmed_at: now, confirmed_by: user.id };
}

/** The compliance fields of /api/user/topup/info new-api's console reads (Waffo is not served here). */
export function complianceInfo(options: OptionsService) {
  return {
    enable_redemption: true,
    payment_compliance_confirmed: isComplianceConfirmed(options),
    payment_compliance_terms_version: PAYMENT_COMPLIANCE_TERMS_VERSION,
    enable_waffo_topup: false,
    enable_waffo_pancake_topup: false,
    waffo_pay_methods: null,
  };
}
