import { safeUrl } from '../../lib/safe-url';

/** Opens a provider's payment page (Stripe Checkout, Creem) in a new tab, if it is a web address. */
export function openPaymentPage(link: string): void {
  const url = safeUrl(link, 'page');
  if (url) window.open(url, '_blank', 'noopener');
}
