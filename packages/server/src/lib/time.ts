export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** The calendar day (YYYY-MM-DD) of an instant in an IANA time zone ('' = the process's local time). */
export function dayIn(timeZone: string, at: Date = new Date()): string {
  if (!timeZone)
    return `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}`;
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}
