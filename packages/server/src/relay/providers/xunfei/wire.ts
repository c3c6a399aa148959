/** iFlytek Spark's chat WebSocket (`wss://spark-api.xf-yun.com/{version}/chat`) frames as Tollway writes and reads them. */

export type SparkMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/** The one frame sent: `header.app_id` and `parameter.chat.domain` are filled in by the adaptor. */
export type SparkRequest = {
  header: { app_id: string; uid?: string };
  parameter: { chat: { domain: string; temperature?: number; top_k?: number; max_tokens?: number } };
  payload: { message: { text: SparkMessage[] } };
};

export type SparkUsage = {
  question_tokens?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
};

/**
 * Each answer frame: `header.code` 0 or an error; `status` 2 (header and choices) on the last frame, which carries
 * the usage.
 */
export type SparkFrame = {
  header?: { code?: number; message?: string; sid?: string; status?: number };
  payload?: {
    choices?: { status?: number; seq?: number; text?: { content?: string; role?: string; index?: number }[] };
    usage?: { text?: SparkUsage };
  };
};
