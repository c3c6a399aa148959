/** JSON templates of the channel editor. */
export const TEMPLATES = {
  modelMapping: { 'gpt-3.5-turbo': 'gpt-3.5-turbo-0125' },
  statusCodeMapping: { '400': '500' },
  region: { default: 'us-central1', 'claude-3-5-sonnet-20240620': 'europe-west1' },
  paramOverride: { temperature: 0 },
  setting: { force_format: false, thinking_to_content: false, proxy: '' },
} as const;

export const pretty = (v: unknown) => JSON.stringify(v, null, 2);

/** '' or a JSON object. */
export function isJsonObjectText(text: string): boolean {
  const v = text.trim();
  if (v === '') return true;
  try {
    const parsed = JSON.parse(v) as unknown;
    return !!parsed && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/** Re-indents JSON text; returns it unchanged when it does not parse. */
export function formatJson(text: string): string {
  try {
    return text.trim() === '' ? '' : pretty(JSON.parse(text));
  } catch {
    return text;
  }
}
