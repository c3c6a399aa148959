/** Zhipu ChatGLM v3 model API (`/api/paas/v3/model-api/{model}/invoke|sse-invoke`) as Tollway writes and reads it. */

/** v3 takes only user and assistant turns, alternating. */
export type ChatGLMMessage = { role: 'user' | 'assistant'; content: string };

export type ChatGLMRequest = {
  prompt: ChatGLMMessage[];
  temperature?: number;
  top_p?: number;
  request_id?: string;
};

export type ChatGLMUsage = { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };

/** The answer of `invoke`: `success: false` with `code`/`msg` when refused (HTTP 200). */
export type ChatGLMResponse = {
  code?: number;
  msg?: string;
  success?: boolean;
  data?: {
    task_id?: string;
    request_id?: string;
    task_status?: string;
    /** `content` is a JSON string literal (quoted, escaped). */
    choices?: { role?: string; content?: string }[];
    usage?: ChatGLMUsage;
  };
};

/** The `meta:` line of the `finish` event of `sse-invoke`. */
export type ChatGLMMeta = { request_id?: string; task_id?: string; task_status?: string; usage?: ChatGLMUsage };

/**
 * One `sse-invoke` event as the framer hands it on (JSON in the SSE event's data): its `data:` lines (the text, lines
 * joined by newlines) and its `meta:` line.
 */
export type ChatGLMFramedEvent = { data: string; meta?: string };
