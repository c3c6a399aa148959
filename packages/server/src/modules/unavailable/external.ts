import { ErrorCode } from '@tollway/shared';
import type { Router } from '../../http/route.js';
import { unavailableAnswers } from './refuse.js';

export const DEPLOYMENTS_UNAVAILABLE = 'model deployments (io.net) are not available on this server';
/** The payment providers of new-api this gateway has no integration for (it takes epay, Stripe, Creem, codes). */
const PAYMENT_METHODS = { waffo: 'Waffo' } as const;
const paymentUnavailable = (method: string) =>
  `${method} payments are not available on this server; top up with epay, Stripe, Creem or a redemption code`;

/**
 * new-api features that live outside this gateway: io.net model deployments and the Waffo payment integration. Each route answers new-api's
 * success:false with why; the settings pages' own polling answers "none" or "not enabled".
 */
export function unavailableExternalRoutes(r: Router): void {
  const { empty, refuse } = unavailableAnswers(r);

  const deployments = ErrorCode.DeploymentsUnavailable;
  empty(
    'GET',
    '/api/deployments/settings',
    'admin',
    'Model deployment settings: never enabled (not available)',
    () => ({
      provider: 'io.net',
      enabled: false,
      configured: false,
      can_connect: false,
    }),
  );
  for (const [method, url] of [
    ['POST', '/api/deployments/settings/test-connection'],
    ['GET', '/api/deployments/'],
    ['GET', '/api/deployments/search'],
    ['POST', '/api/deployments/test-connection'],
    ['GET', '/api/deployments/hardware-types'],
    ['GET', '/api/deployments/locations'],
    ['GET', '/api/deployments/available-replicas'],
    ['POST', '/api/deployments/price-estimation'],
    ['GET', '/api/deployments/check-name'],
    ['POST', '/api/deployments/'],
    ['GET', '/api/deployments/:id'],
    ['GET', '/api/deployments/:id/logs'],
    ['GET', '/api/deployments/:id/containers'],
    ['GET', '/api/deployments/:id/containers/:container_id'],
    ['PUT', '/api/deployments/:id'],
    ['PUT', '/api/deployments/:id/name'],
    ['POST', '/api/deployments/:id/extend'],
    ['DELETE', '/api/deployments/:id'],
  ] as const)
    refuse(method, url, 'admin', DEPLOYMENTS_UNAVAILABLE, deployments);

  for (const [path, method] of Object.entries(PAYMENT_METHODS)) {
    const refusePayment = (url: string, level: 'public' | 'user') =>
      refuse('POST', url, level, paymentUnavailable(method), ErrorCode.PaymentMethodUnavailable, { method });
    refusePayment(`/api/${path}/webhook`, 'public');
    refusePayment(`/api/user/${path}/pay`, 'user');
  }
}
