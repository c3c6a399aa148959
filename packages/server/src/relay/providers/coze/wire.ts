/** Coze chat v3's wire shapes (`POST /v3/chat`) as Tollway writes the request and reads the answer and its stream. */

export type CozeUsage = { input_count?: number; output_count?: number; input_tokens?: number; output_tokens?: number };

export type CozeMessage = {
  role: 'user' | 'assistant';
  type: 'question' | 'answer';
  content: string;
  content_type: 'text' | 'object_string';
};

export type CozeRequest = {
  bot_id: string;
  user_id: string;
  stream: boolean;
  auto_save_history: boolean;
  additional_messages: CozeMessage[];
};

/** A JSON answer: the chat object, or an error envelope (`code` not 0). */
export type CozeAnswer = { code?: number; msg?: string; data?: { id?: string; usage?: CozeUsage } };

/** The data of one stream event; the SSE event name says which fields it carries. */
export type CozeStreamData = {
  id?: string;
  chat_id?: string;
  role?: string;
  type?: string;
  content?: string;
  reasoning_content?: string;
  usage?: CozeUsage | null;
  last_error?: { code?: number; msg?: string };
  msg?: string;
};
