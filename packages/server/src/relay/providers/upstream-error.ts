/** The message of a model API's JSON error answer ({error:{message}}, {error:"…"} or {message:"…"}), else undefined. */
export function upstreamErrorMessage(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { error, message } = body as { error?: unknown; message?: unknown };
  const found =
    typeof error === 'string'
      ? error
      : error && typeof error === 'object'
        ? ((error as { message?: unknown }).message ?? message)
        : message;
  return typeof found === 'string' && found.trim() ? found : undefined;
}
