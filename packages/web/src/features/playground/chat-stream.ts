import { getStoredUser } from '../../lib/storage';

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
  /** Loading until the first piece, incomplete while pieces stream in, complete when done or stopped, error on failure. */
  status: 'loading' | 'incomplete' | 'complete' | 'error';
}

export interface ChatSettings {
  model: string;
  group: string;
  temperature: number;
  maxTokens: number;
  stream: boolean;
}

/** An HTTP failure of the playground call, with the server's message. */
export class ChatFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * POST /pg/chat/completions with the session; calls `onText` with each piece of the answer as it arrives
 * (SSE `data:` lines until `[DONE]`, or the whole answer when not streaming).
 */
export async function sendChat(
  history: ChatTurn[],
  s: ChatSettings,
  onText: (piece: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const body = {
    model: s.model,
    group: s.group || undefined,
    stream: s.stream,
    temperature: s.temperature,
    ...(s.maxTokens > 0 ? { max_tokens: s.maxTokens } : {}),
    messages: history.map((m) => ({ role: m.role, content: m.content })),
  };
  const user = getStoredUser();
  const res = await fetch('/pg/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'New-Api-User': String(user?.id ?? '') },
    credentials: 'same-origin',
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok) {
    let message = res.statusText;
    try {
      message = ((await res.json()) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      /* not JSON */
    }
    throw new ChatFailure(message, res.status);
  }
  if (!s.stream || !res.body) {
    const j = (await res.json()) as { choices?: { message?: { content?: string } }[] };
    onText(j.choices?.[0]?.message?.content ?? '');
    return;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') return;
      try {
        const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string } }[] };
        const piece = chunk.choices?.[0]?.delta?.content;
        if (piece) onText(piece);
      } catch {
        /* a partial or foreign line */
      }
    }
  }
}
