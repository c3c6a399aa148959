import { DownloadOutlined, ExportOutlined, PlayCircleFilled } from '@ant-design/icons';
import { Alert, Button, Flex, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionMedia } from './session-media';

/** The cell's play button: a 16:9 tile, the task's image behind it when it has one. */
const TILE = { width: 112, height: 63 };
const PLAYER_WIDTH = 820;
/** The player never grows past most of the window's height (portrait videos). */
const PLAYER_MAX_HEIGHT = '70vh';

/**
 * A finished video: a tile in the table that opens a dialog with the player and links to open or download the
 * file. The player exists only while the dialog is open, so closing it stops the video and a table of results
 * loads no video until one is asked for.
 */
export function VideoResult({ url, poster, title }: { url: string; poster?: string; title?: string }) {
  const { t } = useTranslation('tasks');
  const [open, setOpen] = useState(false);
  // The browser could not load the file (gone, refused, not a video): say so and leave the links.
  const [failed, setFailed] = useState(false);
  // The gateway's own content route is fetched with the session; a remote file plays from its URL.
  const media = useSessionMedia(url, open);
  const href = media.src ?? url;
  const show = () => {
    setFailed(false);
    setOpen(true);
  };
  return (
    <>
      <button
        type="button"
        onClick={show}
        aria-label={t('video.play')}
        title={t('video.play')}
        data-testid="task-video-open"
        style={{
          ...TILE,
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'center',
          padding: 0,
          border: 0,
          borderRadius: 6,
          cursor: 'pointer',
          color: '#fff',
          fontSize: 26,
          background: poster
            ? `#000 center / cover no-repeat url("${encodeURI(poster)}")`
            : 'linear-gradient(135deg, #1f2937, #111827)',
        }}
      >
        <PlayCircleFilled style={{ opacity: 0.9, filter: 'drop-shadow(0 1px 2px rgba(0,0,0,.6))' }} />
      </button>
      <Modal
        open={open}
        onCancel={() => setOpen(false)}
        title={title || t('video.title')}
        width={PLAYER_WIDTH}
        centered
        destroyOnHidden
        footer={
          <Flex justify="space-between" align="center" gap={8} wrap>
            <Typography.Text
              type="secondary"
              ellipsis={{ tooltip: url }}
              style={{ maxWidth: 420 }}
              className="tw-log-num"
            >
              {url}
            </Typography.Text>
            <Flex gap={8}>
              <Button
                icon={<ExportOutlined />}
                href={href}
                target="_blank"
                rel="noopener noreferrer"
                data-testid="task-video-link"
              >
                {t('video.open')}
              </Button>
              <Button type="primary" icon={<DownloadOutlined />} href={href} download data-testid="task-video-download">
                {t('video.download')}
              </Button>
            </Flex>
          </Flex>
        }
      >
        {(failed || media.failed) && (
          <Alert
            type="warning"
            showIcon
            title={t('video.failed')}
            style={{ marginBottom: 12 }}
            data-testid="task-video-failed"
          />
        )}
        {open && media.src && (
          <video
            onError={() => setFailed(true)}
            controls
            preload="metadata"
            src={media.src}
            poster={poster}
            style={{
              display: 'block',
              width: '100%',
              maxHeight: PLAYER_MAX_HEIGHT,
              borderRadius: 6,
              background: '#000',
            }}
            data-testid="task-video"
          >
            {t('video.unsupported')}
          </video>
        )}
      </Modal>
    </>
  );
}
