/** Strings of the redemption feature (admin code management and the wallet's redeem card), zh and en. */
export default {
  zh: {
    redeem: {
      title: '兑换码充值',
      placeholder: '请输入兑换码',
      button: '兑换',
      empty: '请输入兑换码！',
      success: '兑换成功，已到账 {{quota}}',
    },
  },
  en: {
    redeem: {
      title: 'Redeem a code',
      placeholder: 'Enter a redemption code',
      button: 'Redeem',
      empty: 'Please enter a redemption code!',
      success: 'Redeemed: {{quota}} added to your balance',
    },
  },
};
