import { ChannelType } from '@tollway/shared';

/** One result file of a task: an image, a song or a video, with the title the upstream gave it. */
export interface TaskMedia {
  kind: 'image' | 'audio' | 'video';
  url: string;
  title?: string;
}

/** Platforms whose results are videos: by name, or by channel type id as new-api stores them. */
export const VIDEO_PLATFORMS = new Set([
  'kling',
  'jimeng',
  'vidu',
  'sora',
  'doubao',
  'openai',
  String(ChannelType.Kling),
  String(ChannelType.Jimeng),
  String(ChannelType.Vidu),
  String(ChannelType.DoubaoVideo),
  String(ChannelType.Sora),
]);

export const isVideoPlatform = (platform: string) => VIDEO_PLATFORMS.has(platform.toLowerCase());

/** OpenAI-compatible video platforms: the finished file is served by the gateway's own content route. */
const CONTENT_ROUTE_PLATFORMS = new Set(['sora', 'openai', String(ChannelType.Sora)]);

/** The gateway's route that streams an OpenAI-compatible video (fetched with the console's session and New-Api-User header). */
export const videoContentPath = (taskId: string) => `/v1/videos/${encodeURIComponent(taskId)}/content`;

/** Deepest nesting searched in a task's data (upstream payloads are shallow; this bounds odd ones). */
const MAX_DEPTH = 6;
/** Most files shown per task. */
const MAX_MEDIA = 8;

const VIDEO_EXT = /\.(mp4|webm|mov|m3u8)(\?|#|$)/i;
const AUDIO_EXT = /\.(mp3|wav|m4a|ogg|flac|aac)(\?|#|$)/i;
const IMAGE_EXT = /\.(png|jpe?g|webp|gif)(\?|#|$)/i;

const isUrl = (s: string) => /^(https?:\/\/|data:(image|audio|video)\/)/i.test(s);

/** What a URL under `key` holds: by the key's name, then the file's extension or data: type, then the platform. */
function kindOf(key: string, url: string, video: boolean): TaskMedia['kind'] | undefined {
  const k = key.toLowerCase();
  if (k.includes('audio')) return 'audio';
  if (k.includes('video')) return 'video';
  if (k.includes('image') || k.includes('cover') || k.includes('thumbnail')) return 'image';
  if (VIDEO_EXT.test(url) || url.startsWith('data:video/')) return 'video';
  if (AUDIO_EXT.test(url) || url.startsWith('data:audio/')) return 'audio';
  if (IMAGE_EXT.test(url) || url.startsWith('data:image/')) return 'image';
  return k === 'url' || k.endsWith('_url') ? (video ? 'video' : undefined) : undefined;
}

/**
 * The result files of a task: its result_url, then those in its stored data (the upstream's JSON: Suno's songs with audio_url/image_url/
 * video_url, a video platform's url or videos[].url), plus, for video platforms, a URL stored as the result in
 * fail_reason on success (new-api keeps it there), else for an OpenAI-compatible platform the gateway's content route.
 * Images come after the audio and video they illustrate.
 */
export function taskMedia(r: {
  data: string;
  platform: string;
  status: string;
  fail_reason: string;
  result_url?: string;
  task_id?: string;
}): TaskMedia[] {
  const video = isVideoPlatform(r.platform);
  const found: TaskMedia[] = [];
  const seen = new Set<string>();
  const add = (m: TaskMedia) => {
    if (seen.has(m.url) || found.length >= MAX_MEDIA) return;
    seen.add(m.url);
    found.push(m);
  };
  const walk = (v: unknown, depth: number) => {
    if (depth > MAX_DEPTH || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const item of v) walk(item, depth + 1);
      return;
    }
    const obj = v as Record<string, unknown>;
    const title = typeof obj.title === 'string' ? obj.title : undefined;
    for (const [key, value] of Object.entries(obj)) {
      if (typeof value === 'string' && isUrl(value)) {
        const kind = kindOf(key, value, video);
        if (kind) add({ kind, url: value, title });
      } else walk(value, depth + 1);
    }
  };
  if (r.result_url && isUrl(r.result_url))
    add({ kind: kindOf('url', r.result_url, video) ?? 'video', url: r.result_url });
  if (r.data) {
    try {
      walk(JSON.parse(r.data), 0);
    } catch {
      // Not JSON: no files.
    }
  }
  if (video && r.status === 'SUCCESS' && isUrl(r.fail_reason)) add({ kind: 'video', url: r.fail_reason });
  // An OpenAI-compatible upstream keeps the file behind its key: the gateway streams it.
  const hasVideo = found.some((m) => m.kind === 'video');
  if (!hasVideo && r.task_id && r.status === 'SUCCESS' && CONTENT_ROUTE_PLATFORMS.has(r.platform.toLowerCase()))
    add({ kind: 'video', url: videoContentPath(r.task_id) });
  const order = { audio: 0, video: 1, image: 2 } as const;
  return found.sort((a, b) => order[a.kind] - order[b.kind]);
}

/** The failure text of a task: none when fail_reason is a video platform's result URL. */
export const failText = (r: { platform: string; status: string; fail_reason: string }) =>
  isVideoPlatform(r.platform) && r.status === 'SUCCESS' && isUrl(r.fail_reason) ? '' : r.fail_reason;
