import { describe, expect, it } from 'vitest';
import { failText, taskMedia } from '../src/features/tasks/media';

const row = (
  r: Partial<{
    data: string;
    platform: string;
    status: string;
    fail_reason: string;
    result_url: string;
    task_id: string;
  }>,
) => ({
  data: '',
  platform: 'suno',
  status: 'SUCCESS',
  fail_reason: '',
  ...r,
});

/** The result files the task log shows from a task's stored data. */
describe('task results from stored data', () => {
  it("Suno's songs: each song's player before its cover, titles kept", () => {
    const data = JSON.stringify([
      {
        title: 'One',
        audio_url: 'https://cdn.example/1.mp3',
        image_url: 'https://cdn.example/1.jpeg',
        video_url: 'https://cdn.example/1.mp4',
      },
      { title: 'Two', audio_url: 'https://cdn.example/2.mp3' },
    ]);
    expect(taskMedia(row({ data }))).toEqual([
      { kind: 'audio', url: 'https://cdn.example/1.mp3', title: 'One' },
      { kind: 'audio', url: 'https://cdn.example/2.mp3', title: 'Two' },
      { kind: 'video', url: 'https://cdn.example/1.mp4', title: 'One' },
      { kind: 'image', url: 'https://cdn.example/1.jpeg', title: 'One' },
    ]);
  });

  it("a video platform's nested url, its result_url, and a URL kept in fail_reason on success (not a failure)", () => {
    const data = JSON.stringify({ task_result: { videos: [{ url: 'https://v.example/a' }] } });
    expect(taskMedia(row({ platform: 'kling', data })).map((m) => [m.kind, m.url])).toEqual([
      ['video', 'https://v.example/a'],
    ]);
    expect(taskMedia(row({ platform: '55', result_url: 'https://v.example/b.mp4' }))).toEqual([
      { kind: 'video', url: 'https://v.example/b.mp4' },
    ]);
    const stored = row({ platform: 'vidu', fail_reason: 'https://v.example/c' });
    expect(taskMedia(stored)).toEqual([{ kind: 'video', url: 'https://v.example/c' }]);
    expect(failText(stored)).toBe('');
    expect(failText(row({ platform: 'vidu', status: 'FAILURE', fail_reason: 'quota exhausted' }))).toBe(
      'quota exhausted',
    );
  });

  it("a finished OpenAI-compatible video without a URL plays from the gateway's content route; a stored URL wins", () => {
    for (const platform of ['sora', 'openai', '55'])
      expect(taskMedia(row({ platform, task_id: 'video_a/b?' }))).toEqual([
        { kind: 'video', url: '/v1/videos/video_a%2Fb%3F/content' },
      ]);
    expect(taskMedia(row({ platform: 'sora', task_id: 'v1', result_url: 'https://v.example/s.mp4' }))).toEqual([
      { kind: 'video', url: 'https://v.example/s.mp4' },
    ]);
    // Not finished, or a platform whose file is the upstream's own URL: nothing to play yet.
    expect(taskMedia(row({ platform: 'sora', task_id: 'v2', status: 'IN_PROGRESS' }))).toEqual([]);
    expect(taskMedia(row({ platform: 'sora', task_id: 'v3', status: 'FAILURE', fail_reason: 'moderation' }))).toEqual(
      [],
    );
    expect(taskMedia(row({ platform: 'kling', task_id: 'k1' }))).toEqual([]);
    expect(taskMedia(row({ platform: 'suno', task_id: 's1' }))).toEqual([]);
  });

  it('only http(s) and media data URLs; bad JSON, scripts and unknown files give nothing', () => {
    expect(taskMedia(row({ data: 'not json' }))).toEqual([]);
    expect(
      taskMedia(
        row({ data: JSON.stringify({ audio_url: 'javascript:alert(1)', image_url: 'data:text/html,<b>x</b>' }) }),
      ),
    ).toEqual([]);
    expect(taskMedia(row({ data: JSON.stringify({ url: 'https://x.example/file' }) }))).toEqual([]);
  });
});
