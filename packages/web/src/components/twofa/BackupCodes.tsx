import { CopyOutlined, DownloadOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useCopy } from '../useCopy';

/** Saves `text` as a file the browser downloads. */
function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

/** Backup codes shown once, with copy and download. */
export function BackupCodes({ codes, account }: { codes: string[]; account: string }) {
  const { t } = useTranslation('twofa');
  const copy = useCopy();
  const text = codes.join('\n');
  return (
    <div data-testid="twofa-backup-codes">
      <Alert type="warning" showIcon title={t('backup.hint')} style={{ marginBottom: 12 }} />
      <div
        style={{
          display: 'grid',
          gridTemplateColumns: 'repeat(2, max-content)',
          gap: '6px 24px',
          justifyContent: 'center',
        }}
      >
        {codes.map((c) => (
          <Typography.Text key={c} code data-testid="twofa-backup-code">
            {c}
          </Typography.Text>
        ))}
      </div>
      <Flex gap={8} style={{ marginTop: 12 }}>
        <Button
          icon={<CopyOutlined />}
          onClick={() => void copy(text, t('backup.copied'))}
          data-testid="twofa-backup-copy"
        >
          {t('backup.copy')}
        </Button>
        <Button
          icon={<DownloadOutlined />}
          onClick={() => download(`${account}-backup-codes.txt`, `${text}\n`)}
          data-testid="twofa-backup-download"
        >
          {t('backup.download')}
        </Button>
      </Flex>
    </div>
  );
}
