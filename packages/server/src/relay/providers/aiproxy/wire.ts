/** AI Proxy's library API (`POST /api/library/ask`: questions answered from a knowledge library) as Tollway uses it. */

export type LibraryRequest = { model: string; query: string; libraryId: string; stream: boolean };

export type LibraryDocument = { title?: string; url?: string };

/** A whole answer; `success: false` with `errCode`/`message` when refused. */
export type LibraryResponse = {
  success?: boolean;
  answer?: string;
  documents?: LibraryDocument[];
  errCode?: number;
  message?: string;
};

/** One stream chunk: a piece of the answer; the documents and `finish` come with the last. */
export type LibraryStreamChunk = { content?: string; model?: string; documents?: LibraryDocument[]; finish?: boolean };
