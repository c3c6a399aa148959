import { describe, expect, it } from 'vitest';
import { epayPurchase, epaySign, epaySignText, epayVerify } from '../../src/modules/topup/epay.js';

/*
 * Known answers computed by hand from the published Epay algorithm (sort by name, drop sign, sign_type and
 * empty values, join k=v with &, append the key, lowercase MD5), on the shell:
 *   echo -n '<sorted text><key>' | md5sum
 */
const KEY = 'k3yS3cret';
const PURCHASE_TEXT =
  'money=73.00&name=TUC10&notify_url=https://gw.example.com/api/user/epay/notify&out_trade_no=USR1NOabc1700000000&pid=1001&return_url=https://gw.example.com/app/wallet&type=alipay';
const PURCHASE_MD5 = '31609a9391508bb2209ab9c0ffd3c2c2';
const NOTIFY_TEXT =
  'money=73.00&name=TUC10&out_trade_no=USR1NOabc1700000000&pid=1001&trade_no=2026112200001&trade_status=TRADE_SUCCESS&type=alipay';
const NOTIFY_MD5 = '2f3b3b68eb79ea05ee10461ec801b214';

const notify = {
  trade_status: 'TRADE_SUCCESS',
  pid: '1001',
  type: 'alipay',
  trade_no: '2026112200001',
  out_trade_no: 'USR1NOabc1700000000',
  name: 'TUC10',
  money: '73.00',
  param: '',
  sign_type: 'MD5',
  sign: NOTIFY_MD5,
};

describe('Epay MD5 signature', () => {
  it('signs the purchase form as the hand-computed vector', () => {
    const { url, fields } = epayPurchase(
      { address: 'https://pay.example.com/', pid: '1001', key: KEY },
      {
        type: 'alipay',
        outTradeNo: 'USR1NOabc1700000000',
        notifyUrl: 'https://gw.example.com/api/user/epay/notify',
        returnUrl: 'https://gw.example.com/app/wallet',
        name: 'TUC10',
        money: '73.00',
      },
    );
    expect(url).toBe('https://pay.example.com/submit.php');
    expect(epaySignText(fields)).toBe(PURCHASE_TEXT);
    expect(fields.sign).toBe(PURCHASE_MD5);
    expect(fields.sign_type).toBe('MD5');
    expect(Object.keys(fields).sort()).toEqual([
      'money',
      'name',
      'notify_url',
      'out_trade_no',
      'pid',
      'return_url',
      'sign',
      'sign_type',
      'type',
    ]);
  });

  it('sorts by name, drops sign, sign_type and empty values, whatever the insertion order', () => {
    expect(epaySignText(notify)).toBe(NOTIFY_TEXT);
    expect(epaySign(notify, KEY)).toBe(NOTIFY_MD5);
    const reversed = Object.fromEntries(Object.entries(notify).reverse());
    expect(epaySign(reversed, KEY)).toBe(NOTIFY_MD5);
  });

  it('verifies a genuine notify (sign in either case) and refuses tampering or another key', () => {
    expect(epayVerify(notify, KEY)).toBe(true);
    expect(epayVerify({ ...notify, sign: NOTIFY_MD5.toUpperCase() }, KEY)).toBe(true);
    expect(epayVerify({ ...notify, money: '730.00' }, KEY)).toBe(false);
    expect(epayVerify({ ...notify, out_trade_no: 'USR2NOabc1700000000' }, KEY)).toBe(false);
    expect(epayVerify(notify, 'other-key')).toBe(false);
    expect(epayVerify({ ...notify, sign: '' }, KEY)).toBe(false);
    expect(epayVerify({ ...notify, sign: undefined }, KEY)).toBe(false);
  });
});
