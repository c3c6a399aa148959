import crypto from 'node:crypto';

/**
 * Epay (易支付) MD5 signing, as the protocol publishes it: take every parameter except `sign`, `sign_type` and
 * those with an empty value, sort them by name in ASCII order, join them as `k=v` with `&` (values not
 * URL-encoded), append the merchant key directly, and take the lowercase hex MD5. Pure functions, no I/O.
 */
export type EpayParams = Record<string, string | undefined>;

const byAscii = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The text Epay signs (before the key is appended). */
export function epaySignText(params: EpayParams): string {
  return Object.keys(params)
    .filter((k) => k !== 'sign' && k !== 'sign_type' && params[k] !== undefined && params[k] !== '')
    .sort(byAscii)
    .map((k) => `${k}=${params[k]}`)
    .join('&');
}

export function epaySign(params: EpayParams, key: string): string {
  return crypto
    .createHash('md5')
    .update(epaySignText(params) + key, 'utf8')
    .digest('hex');
}

/** True when `sign` is the signature of the other parameters under `key` (compared in constant time). */
export function epayVerify(params: EpayParams, key: string): boolean {
  const given = Buffer.from(String(params.sign ?? '').toLowerCase());
  const expected = Buffer.from(epaySign(params, key));
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

export interface EpayMerchant {
  /** The Epay site (PayAddress); the form goes to its submit.php. */
  address: string;
  pid: string;
  key: string;
}

export interface EpayOrder {
  /** Epay payment type: alipay, wxpay, qqpay… */
  type: string;
  outTradeNo: string;
  notifyUrl: string;
  returnUrl: string;
  name: string;
  /** Two decimals, e.g. "7.30". */
  money: string;
}

/** The page-jump payment request: the submit.php URL and the signed form fields the browser sends there. */
export function epayPurchase(
  merchant: EpayMerchant,
  order: EpayOrder,
): { url: string; fields: Record<string, string> } {
  const fields: Record<string, string> = {
    pid: merchant.pid,
    type: order.type,
    out_trade_no: order.outTradeNo,
    notify_url: order.notifyUrl,
    return_url: order.returnUrl,
    name: order.name,
    money: order.money,
  };
  fields.sign = epaySign(fields, merchant.key);
  fields.sign_type = 'MD5';
  return { url: `${merchant.address.replace(/\/+$/, '')}/submit.php`, fields };
}

/** Trade status Epay reports for a paid order. */
export const EPAY_TRADE_SUCCESS = 'TRADE_SUCCESS';

/** Whether Epay's reported money and an order's are the same amount to the cent. */
export function sameCents(paid: unknown, expected: unknown): boolean {
  return Math.round(Number(paid) * CENTS) === Math.round(Number(expected) * CENTS);
}

const CENTS = 100;
