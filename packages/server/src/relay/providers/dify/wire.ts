/** Dify chat apps' wire shapes (`POST /v1/chat-messages`) as Tollway writes the request and reads the answer and its stream. */

export type DifyUsage = { prompt_tokens?: number; completion_tokens?: number };

export type DifyRequest = {
  inputs: Record<string, string>;
  query: string;
  response_mode: 'streaming' | 'blocking';
  user: string;
  files?: { type: 'image'; transfer_method: 'remote_url'; url: string }[];
};

/** A blocking answer. */
export type DifyAnswer = { id?: string; message_id?: string; answer?: string; metadata?: { usage?: DifyUsage } };

/** One stream event (`event` names it: message, agent_message, message_end, error, workflow events, …). */
export type DifyStreamEvent = DifyAnswer & { event?: string; message?: string };
