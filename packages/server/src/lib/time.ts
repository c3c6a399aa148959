export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** The calendar day (YYYY-MM-DD) of an instant in an IANA time zone. */
export function dayIn(timeZone: string, at: Date = new Date()): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}
