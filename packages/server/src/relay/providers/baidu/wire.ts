/** Baidu ERNIE v1 (wenxinworkshop chat API and the OAuth token endpoint) as Tollway writes and reads it. */

export type ErnieMessage = { role: 'user' | 'assistant'; content: string };

export type ErnieRequest = {
  messages: ErnieMessage[];
  system?: string;
  temperature?: number;
  top_p?: number;
  penalty_score?: number;
  stream?: boolean;
  stop?: string[];
  max_output_tokens?: number;
  user_id?: string;
};

export type ErnieUsage = { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };

/** A whole answer and, with `sentence_id` and `is_end`, each stream chunk; `error_code`/`error_msg` when refused (HTTP 200). */
export type ErnieResponse = {
  id?: string;
  created?: number;
  result?: string;
  is_truncated?: boolean;
  finish_reason?: string;
  sentence_id?: number;
  is_end?: boolean;
  usage?: ErnieUsage;
  error_code?: number;
  error_msg?: string;
};

/** `POST /oauth/2.0/token?grant_type=client_credentials&client_id=…&client_secret=…`. */
export type ErnieTokenAnswer = {
  access_token?: string;
  expires_in?: number;
  error?: string;
  error_description?: string;
};
