import { Flex, Image, Typography } from 'antd';
import type { ReactNode } from 'react';
import type { TaskMedia } from './media';
import { VideoResult } from './VideoResult';

/** Sizes of the result cells: an image thumbnail, a song player. */
const THUMB = 48;
const AUDIO_WIDTH = 240;

/** A task's results: thumbnails that open a preview, song players with their titles, videos that open a player. */
export function TaskResults({ media, empty }: { media: TaskMedia[]; empty: ReactNode }) {
  if (media.length === 0) return empty;
  const images = media.filter((m) => m.kind === 'image');
  const poster = images[0]?.url;
  return (
    <Flex vertical gap={6} data-testid="task-results">
      {media
        .filter((m) => m.kind === 'audio')
        .map((m) => (
          <Flex key={m.url} vertical gap={2}>
            {m.title && (
              <Typography.Text ellipsis={{ tooltip: m.title }} style={{ maxWidth: AUDIO_WIDTH, fontSize: 12 }}>
                {m.title}
              </Typography.Text>
            )}
            <audio
              controls
              preload="none"
              src={m.url}
              style={{ width: AUDIO_WIDTH, height: 32 }}
              data-testid="task-audio"
            />
          </Flex>
        ))}
      {media
        .filter((m) => m.kind === 'video')
        .map((m) => (
          <VideoResult key={m.url} url={m.url} poster={poster} title={m.title} />
        ))}
      {images.length > 0 && (
        <Image.PreviewGroup>
          <Flex gap={4} wrap>
            {images.map((m) => (
              <Image
                key={m.url}
                src={m.url}
                alt={m.title ?? ''}
                width={THUMB}
                height={THUMB}
                style={{ objectFit: 'cover', borderRadius: 6 }}
                data-testid="task-image"
              />
            ))}
          </Flex>
        </Image.PreviewGroup>
      )}
    </Flex>
  );
}
