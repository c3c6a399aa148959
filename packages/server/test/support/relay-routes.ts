// Every relay route a caller can reach with an API key: the bad-input sweeps (relay-bad-input, relay-bad-input-tasks)
// and the permission matrix (relay-permission-matrix) read this one list, so a route added here is swept and checked
// by all three, and each one's coverage test fails when the server registers a route that is missing here.

/** The model a generic OpenAI-format channel serves for the sweeps and the matrix. */
export const RELAY_MODEL = 'sweep-model';
/** Served by a Sora channel on a mock OpenAI videos API: the video task routes' valid bodies are accepted. */
export const RELAY_VIDEO_MODEL = 'sweep-video';

export type RelayProtocol = 'openai' | 'anthropic' | 'gemini';

/** A relay route with a JSON body (or, for the playground, the console session instead of a key). */
export interface RelayRoute {
  path: string;
  /** Shown in failures when two entries share a path (a second body form of one route). */
  label?: string;
  protocol: RelayProtocol;
  /** A body the route accepts; the sweep breaks it field by field. */
  valid: Record<string, unknown>;
  /** Fields whose value the sweep replaces with hostile ones (dotted paths reach nested fields). */
  fields: string[];
  auth: 'key' | 'session';
  /** Answered by the gateway itself (no upstream, not billed). */
  local?: boolean;
}

export const chatMessages = [{ role: 'user', content: 'hi' }];
export const geminiContents = [{ role: 'user', parts: [{ text: 'hi' }] }];

/** The wildcard POST routes the Gemini API is served under; each dispatches on the method after the model. */
export const GEMINI_PREFIXES = ['/v1beta/models/', '/v1/models/'] as const;
/**
 * The Gemini methods the wildcard routes dispatch (routes.ts → geminiAnyInbound / geminiLocalCall): any other
 * method is a 404. relay-bad-input probes Google's method names to keep this list exactly the dispatched set.
 */
export const GEMINI_METHODS = [
  'generateContent',
  'streamGenerateContent',
  'countTokens',
  'embedContent',
  'batchEmbedContents',
] as const;

const geminiRoutes = (prefix: string, full: boolean): RelayRoute[] => {
  const at = (method: string) => `${prefix}${RELAY_MODEL}:${method}`;
  const r = (method: string, valid: Record<string, unknown>, fields: string[], label?: string): RelayRoute => ({
    path: at(method),
    label,
    protocol: 'gemini',
    valid,
    fields,
    auth: 'key',
    local: method === 'countTokens',
  });
  const embed = { content: { parts: [{ text: 'hi' }] } };
  return [
    r(
      'generateContent',
      { contents: geminiContents },
      full
        ? [
            'contents',
            'generationConfig',
            'generationConfig.maxOutputTokens',
            'generationConfig.candidateCount',
            'systemInstruction',
            'tools',
          ]
        : ['contents', 'generationConfig.maxOutputTokens'],
    ),
    r('streamGenerateContent', { contents: geminiContents }, ['contents', 'generationConfig.maxOutputTokens']),
    r(
      'countTokens',
      { contents: geminiContents },
      full
        ? [
            'contents',
            'generationConfig',
            'generationConfig.maxOutputTokens',
            'systemInstruction',
            'tools',
            'generateContentRequest',
          ]
        : ['contents', 'generateContentRequest'],
    ),
    // countTokens' other form: the whole generateContent request, whose prompt is counted.
    r(
      'countTokens',
      { generateContentRequest: { model: `models/${RELAY_MODEL}`, contents: geminiContents } },
      full
        ? [
            'generateContentRequest.contents',
            'generateContentRequest.generationConfig',
            'generateContentRequest.generationConfig.maxOutputTokens',
            'generateContentRequest.systemInstruction',
            'generateContentRequest.tools',
          ]
        : ['generateContentRequest.contents'],
      `${at('countTokens')} (generateContentRequest)`,
    ),
    r(
      'embedContent',
      embed,
      full ? ['content', 'content.parts', 'outputDimensionality'] : ['content', 'outputDimensionality'],
    ),
    r('batchEmbedContents', { requests: [embed] }, ['requests']),
  ];
};

/**
 * Every JSON relay route (a fresh list: callers add routes that need a task first, such as a video's remix), with
 * the fields that carry content, limits and flags.
 */
export function relayJsonRoutes(): RelayRoute[] {
  const model = RELAY_MODEL;
  const video = RELAY_VIDEO_MODEL;
  return [
    {
      path: '/v1/chat/completions',
      protocol: 'openai',
      valid: { model, messages: chatMessages },
      fields: [
        'model',
        'messages',
        'max_tokens',
        'max_completion_tokens',
        'n',
        'temperature',
        'stream',
        'stream_options',
        'tools',
      ],
      auth: 'key',
    },
    {
      path: '/v1/completions',
      protocol: 'openai',
      valid: { model, prompt: 'hi' },
      fields: ['model', 'prompt', 'max_tokens', 'n', 'stream'],
      auth: 'key',
    },
    {
      path: '/v1/embeddings',
      protocol: 'openai',
      valid: { model, input: 'hi' },
      fields: ['model', 'input'],
      auth: 'key',
    },
    {
      path: '/v1/videos',
      protocol: 'openai',
      valid: { model: video, prompt: 'hi' },
      fields: ['model', 'prompt', 'seconds', 'size', 'images', 'metadata'],
      auth: 'key',
    },
    {
      path: '/v1/video/generations',
      protocol: 'openai',
      valid: { model: video, prompt: 'hi' },
      fields: ['model', 'prompt', 'duration', 'size', 'image', 'mode'],
      auth: 'key',
    },
    {
      path: '/v1/moderations',
      protocol: 'openai',
      valid: { model, input: 'hi' },
      fields: ['model', 'input'],
      auth: 'key',
    },
    {
      path: '/v1/responses',
      protocol: 'openai',
      valid: { model, input: 'hi' },
      fields: ['model', 'input', 'max_output_tokens', 'instructions', 'stream', 'tools'],
      auth: 'key',
    },
    {
      path: '/v1/messages',
      protocol: 'anthropic',
      valid: { model, max_tokens: 5, messages: chatMessages },
      fields: ['model', 'messages', 'max_tokens', 'system', 'stream', 'temperature', 'tools'],
      auth: 'key',
    },
    {
      path: '/v1/messages/count_tokens',
      protocol: 'anthropic',
      valid: { model, messages: chatMessages },
      fields: ['model', 'messages', 'system', 'tools'],
      auth: 'key',
      local: true,
    },
    ...geminiRoutes(GEMINI_PREFIXES[0], true),
    ...geminiRoutes(GEMINI_PREFIXES[1], false),
    {
      path: '/v1/images/generations',
      protocol: 'openai',
      valid: { model, prompt: 'a cat' },
      fields: ['model', 'prompt', 'n', 'size', 'quality', 'stream'],
      auth: 'key',
    },
    {
      path: '/v1/audio/speech',
      protocol: 'openai',
      valid: { model, input: 'hello', voice: 'alloy' },
      fields: ['model', 'input', 'voice', 'speed'],
      auth: 'key',
    },
    {
      path: '/v1/rerank',
      protocol: 'openai',
      valid: { model, query: 'q', documents: ['a', 'b'] },
      fields: ['model', 'query', 'documents', 'top_n'],
      auth: 'key',
    },
    {
      path: '/pg/chat/completions',
      protocol: 'openai',
      valid: { model, messages: chatMessages },
      fields: ['model', 'messages', 'max_tokens', 'n', 'stream'],
      auth: 'session',
    },
  ];
}

/** A video's remix (the sweeps and the matrix add it once a finished video exists). */
export const videoRemixRoute = (videoId: string): RelayRoute => ({
  path: `/v1/videos/${videoId}/remix`,
  protocol: 'openai',
  valid: { prompt: 'hi' },
  fields: ['prompt'],
  auth: 'key',
});

/** The multipart media endpoints (their bodies are swept for content type and form errors). */
export const MULTIPART_ROUTES = ['/v1/images/edits', '/v1/audio/transcriptions', '/v1/audio/translations'];

/** The stateful OpenAI APIs a gateway does not hold: 501 to anyone, before any key. */
export const STUBBED_PREFIXES = [
  '/v1/files',
  '/v1/fine_tuning',
  '/v1/fine-tunes',
  '/v1/batches',
  '/v1/assistants',
  '/v1/threads',
  '/v1/vector_stores',
  '/v1/uploads',
];

/* ---------- the task routes: midjourney-proxy's and Suno's APIs, in their own answer shapes ---------- */

/** midjourney-proxy's `{code, description, result, properties}` or Suno's `{code, message, data}`. */
export type TaskProtocol = 'mj' | 'suno';
export interface TaskRoute {
  path: string;
  protocol: TaskProtocol;
  /** A body the route accepts (read once the origin task exists); the sweep breaks it field by field. */
  valid: () => Record<string, unknown>;
  fields: string[];
  /** The upstream's notify: called by the midjourney-proxy, not by a caller with a key. */
  noKey?: boolean;
  /** A submit's priced model (a submit is billed and sent upstream; the other routes read the caller's own tasks). */
  model?: string;
}

export const MJ_MODE_PREFIXES = ['', '/mj-fast', '/mj-relax', '/mj-turbo'];
export const MJ_MODELS =
  'mj_imagine,mj_upscale,mj_describe,mj_blend,mj_modal,mj_shorten,mj_upload,swap_face,mj_video,mj_edits';
export const SUNO_MODELS = 'suno_music,suno_lyrics';

const mjRoutes = (prefix: string, origin: () => string): TaskRoute[] => {
  const mj = `${prefix}/mj`;
  const r = (
    path: string,
    valid: () => Record<string, unknown>,
    fields: string[],
    model?: string,
    noKey = false,
  ): TaskRoute => ({
    path: `${mj}${path}`,
    protocol: 'mj',
    valid,
    fields,
    model,
    noKey,
  });
  return [
    r(
      '/submit/imagine',
      () => ({ prompt: 'a cat' }),
      ['prompt', 'base64Array', 'notifyHook', 'state', 'extra'],
      'mj_imagine',
    ),
    r(
      '/submit/change',
      () => ({ taskId: origin(), action: 'UPSCALE', index: 1 }),
      ['taskId', 'action', 'index', 'extra'],
      'mj_upscale',
    ),
    r('/submit/simple-change', () => ({ content: `${origin()} U1` }), ['content', 'extra'], 'mj_upscale'),
    r('/submit/describe', () => ({ base64: 'data:image/png;base64,AAAA' }), ['base64', 'extra'], 'mj_describe'),
    r(
      '/submit/blend',
      () => ({ base64Array: ['data:image/png;base64,AAAA', 'data:image/png;base64,BBBB'] }),
      ['base64Array', 'extra'],
      'mj_blend',
    ),
    r(
      '/submit/action',
      () => ({ taskId: origin(), customId: `MJ::JOB::upsample::1::${origin()}` }),
      ['taskId', 'customId', 'extra'],
      'mj_upscale',
    ),
    r('/submit/modal', () => ({ taskId: origin() }), ['taskId', 'extra'], 'mj_modal'),
    r('/submit/shorten', () => ({ prompt: 'a long prompt' }), ['prompt', 'extra'], 'mj_shorten'),
    r(
      '/submit/upload-discord-images',
      () => ({ base64Array: ['data:image/png;base64,AAAA'] }),
      ['base64Array', 'extra'],
      'mj_upload',
    ),
    r(
      '/insight-face/swap',
      () => ({ sourceBase64: 'data:image/png;base64,AAAA', targetBase64: 'data:image/png;base64,BBBB' }),
      ['sourceBase64', 'targetBase64', 'extra'],
      'swap_face',
    ),
    r('/submit/video', () => ({ taskId: origin() }), ['taskId', 'image', 'motion', 'prompt', 'extra'], 'mj_video'),
    r(
      '/submit/edits',
      () => ({ prompt: 'a hat', image: 'data:image/png;base64,AAAA' }),
      ['prompt', 'image', 'extra'],
      'mj_edits',
    ),
    r('/task/list-by-condition', () => ({ ids: [origin()] }), ['ids']),
    r('/notify', () => ({ id: 'not-a-task' }), ['id'], undefined, true),
  ];
};

const sunoRoutes: TaskRoute[] = [
  {
    path: '/suno/submit/music',
    protocol: 'suno',
    valid: () => ({ prompt: 'a song' }),
    fields: [
      'prompt',
      'gpt_description_prompt',
      'mv',
      'title',
      'tags',
      'continue_at',
      'task_id',
      'make_instrumental',
      'customMode',
    ],
    model: 'suno_music',
  },
  {
    path: '/suno/submit/lyrics',
    protocol: 'suno',
    valid: () => ({ prompt: 'a poem' }),
    fields: ['prompt', 'model'],
    model: 'suno_lyrics',
  },
  { path: '/suno/fetch', protocol: 'suno', valid: () => ({ ids: ['abc'] }), fields: ['ids'] },
];

/** Midjourney under every mode prefix, then Suno; `origin` is a finished imagine task of the caller. */
export const relayTaskRoutes = (origin: () => string): TaskRoute[] => [
  ...MJ_MODE_PREFIXES.flatMap((p) => mjRoutes(p, origin)),
  ...sunoRoutes,
];

/* ---------- the GET reads ---------- */

export type ReadProtocol = RelayProtocol | TaskProtocol;

/** A token-authenticated GET: the route as registered, the path called, and the shape its answers take. */
export interface ReadRoute {
  url: string;
  path: string;
  protocol: ReadProtocol;
  /** The model the read is about (a token restricted to other models is told it does not exist). */
  model?: string;
}

/** The ids the reads name: a finished task of each kind, owned by the caller. */
export interface ReadIds {
  mj: string;
  suno: string;
  video: string;
}

/**
 * Every token-authenticated GET relay route. Not here: /metrics, /healthz, /readyz (public), the Midjourney image
 * proxy (serves a stored task's image by its id, as midjourney-proxy does, off unless MjForwardUrlEnabled), the
 * stubs (501 to anyone) and /v1/realtime (a WebSocket upgrade: the matrix sends its own).
 */
export function relayReads(ids: ReadIds): ReadRoute[] {
  const model = RELAY_MODEL;
  return [
    { url: '/v1/models', path: '/v1/models', protocol: 'openai' },
    { url: '/v1/models', path: '/v1/models', protocol: 'anthropic' },
    { url: '/v1/models', path: '/v1/models', protocol: 'gemini' },
    { url: '/v1/models/:model', path: `/v1/models/${model}`, protocol: 'openai', model },
    { url: '/v1/models/:model', path: `/v1/models/${model}`, protocol: 'anthropic', model },
    { url: '/v1/models/:model', path: `/v1/models/${model}`, protocol: 'gemini', model },
    { url: '/v1beta/models', path: '/v1beta/models', protocol: 'gemini' },
    { url: '/v1beta/models/:model', path: `/v1beta/models/${model}`, protocol: 'gemini', model },
    ...['', '/v1'].flatMap((p): ReadRoute[] => [
      { url: `${p}/dashboard/billing/subscription`, path: `${p}/dashboard/billing/subscription`, protocol: 'openai' },
      { url: `${p}/dashboard/billing/usage`, path: `${p}/dashboard/billing/usage`, protocol: 'openai' },
    ]),
    ...MJ_MODE_PREFIXES.flatMap((p): ReadRoute[] => [
      { url: `${p}/mj/task/:id/fetch`, path: `${p}/mj/task/${ids.mj}/fetch`, protocol: 'mj' },
      { url: `${p}/mj/task/:id/image-seed`, path: `${p}/mj/task/${ids.mj}/image-seed`, protocol: 'mj' },
    ]),
    { url: '/suno/fetch/:id', path: `/suno/fetch/${ids.suno}`, protocol: 'suno' },
    { url: '/v1/video/generations/:id', path: `/v1/video/generations/${ids.video}`, protocol: 'openai' },
    { url: '/v1/videos/:id', path: `/v1/videos/${ids.video}`, protocol: 'openai' },
    { url: '/v1/videos/:id/content', path: `/v1/videos/${ids.video}/content`, protocol: 'openai' },
  ];
}

/** GET routes outside the relay's key checks (public, or answered to anyone). */
export const isKeylessRead = (url: string): boolean =>
  url.startsWith('/api') ||
  ['/metrics', '/healthz', '/readyz', '/v1/realtime'].includes(url) ||
  url.endsWith('/mj/image/:id') ||
  url.endsWith('/*') ||
  STUBBED_PREFIXES.includes(url);

/* ---------- coverage: which registered routes a list of paths leaves out ---------- */

/** What each wildcard route dispatches on: the path under it must be covered for every one of these. */
const WILDCARD_METHODS: Record<string, readonly string[]> = Object.fromEntries(
  GEMINI_PREFIXES.map((p) => [`${p}*`, GEMINI_METHODS]),
);

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The registered `urls` that no path in `covered` reaches: `:param` segments match any segment, and a wildcard route
 * counts as covered only when every method it dispatches (`{prefix}{model}:{method}`) is, each apart.
 */
export function uncoveredRoutes(urls: string[], covered: string[]): string[] {
  const gaps: string[] = [];
  for (const url of urls) {
    if (url.endsWith('/*')) {
      const prefix = url.slice(0, -1);
      const methods = WILDCARD_METHODS[url];
      if (!methods) gaps.push(`${url} (a wildcard route with no known methods)`);
      else
        for (const m of methods)
          if (!covered.some((p) => new RegExp(`^${escape(prefix)}[^/:]+:${m}$`).test(p)))
            gaps.push(`${prefix}{model}:${m}`);
      continue;
    }
    const pattern = new RegExp(
      `^${url
        .split(/(:[^/]+)/)
        .map((part) => (part.startsWith(':') ? '[^/]+' : escape(part)))
        .join('')}$`,
    );
    if (!covered.some((p) => pattern.test(p))) gaps.push(url);
  }
  return gaps;
}
