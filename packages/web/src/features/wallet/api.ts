import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { DEFAULT_QUOTA_PER_UNIT, type TopUpInfo, type TopUpRecord } from '@tollway/shared';
import { api, apiGet } from '../../lib/api';
import { useStatus } from '../../lib/status';

export const TOPUP_KEY = ['topup'] as const;

/** Quota in one unit of a top-up amount: QuotaPerUnit, or 1 when balances are shown in tokens (amounts are tokens then). */
export function useUnitQuota(): number {
  const { data: status } = useStatus();
  return status?.display_in_currency === false ? 1 : (status?.quota_per_unit ?? DEFAULT_QUOTA_PER_UNIT);
}

export function useTopUpInfo() {
  return useQuery({ queryKey: [...TOPUP_KEY, 'info'], queryFn: () => apiGet<TopUpInfo>('/api/user/topup/info') });
}

export function useTopUpRecords(page: number, pageSize: number) {
  return useQuery({
    queryKey: [...TOPUP_KEY, 'records', page, pageSize],
    queryFn: () =>
      apiGet<{ items: TopUpRecord[]; total: number }>(`/api/user/topup/self?p=${page}&page_size=${pageSize}`),
    placeholderData: keepPreviousData,
  });
}

/**
 * POST /api/user/amount: the payable money as text ("73.00"), or the server's reason (e.g. below the
 * minimum) shown next to the amount instead of a toast, since it follows every keystroke.
 */
export function usePayable(amount: number | null, enabled: boolean) {
  return useQuery({
    queryKey: [...TOPUP_KEY, 'amount', amount],
    enabled: enabled && amount !== null,
    retry: false,
    // top_up_code is part of the request shape, as with a payment (empty: no code goes with an online top-up).
    queryFn: async () =>
      (await api<string>('POST', '/api/user/amount', { amount, top_up_code: '' }, { silent: true })).data ?? '',
  });
}

/** POST /api/user/pay: the Epay form (fields) and where to send it. */
export async function requestPay(
  amount: number,
  paymentMethod: string,
): Promise<{ url?: string; data?: Record<string, string> }> {
  // top_up_code is part of the request shape (empty: no code goes with an online payment).
  const res = await api<Record<string, string>>('POST', '/api/user/pay', {
    amount,
    payment_method: paymentMethod,
    top_up_code: '',
  });
  return res as unknown as { url?: string; data?: Record<string, string> };
}

/** Sends the signed fields to the payment page as a form POST in a new tab (as the Epay page-jump API wants). */
export function submitPaymentForm(url: string, fields: Record<string, string>): void {
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = url;
  form.target = '_blank';
  form.style.display = 'none';
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
  form.remove();
}

/** POST /api/user/stripe/amount: what a Stripe payment of `amount` costs (StripeUnitPrice × units × group ratio). */
export function useStripePayable(amount: number | null, enabled: boolean) {
  return useQuery({
    queryKey: [...TOPUP_KEY, 'stripe-amount', amount],
    enabled: enabled && amount !== null,
    retry: false,
    queryFn: async () =>
      (await api<string>('POST', '/api/user/stripe/amount', { amount, payment_method: 'stripe' }, { silent: true }))
        .data ?? '',
  });
}

/** POST /api/user/stripe/pay: a Stripe Checkout page for `amount`. */
export async function requestStripePay(amount: number): Promise<string | undefined> {
  return (await api<{ pay_link: string }>('POST', '/api/user/stripe/pay', { amount, payment_method: 'stripe' })).data
    ?.pay_link;
}

/** POST /api/user/creem/pay: Creem's checkout page for one of the products. */
export async function requestCreemPay(productId: string): Promise<string | undefined> {
  return (
    await api<{ checkout_url: string }>('POST', '/api/user/creem/pay', {
      product_id: productId,
      payment_method: 'creem',
    })
  ).data?.checkout_url;
}

/** One product of CreemProducts, as /api/user/topup/info lists them (JSON text). */
export interface CreemProduct {
  productId: string;
  name: string;
  price: number;
  currency: string;
  quota: number;
}

export function creemProductsOf(info: TopUpInfo): CreemProduct[] {
  try {
    const list = JSON.parse(info.creem_products) as unknown;
    return Array.isArray(list) ? (list as CreemProduct[]) : [];
  } catch {
    return [];
  }
}
