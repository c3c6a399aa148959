import { Button, DatePicker, Flex, Tag, Typography } from 'antd';
import { renderQuota, TOKEN_MAX_BATCH } from '@tollway/shared';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../lib/status';
import { groupRatioColor } from '../../../lib/price';
import { IntegerInput } from '../../../components/IntegerInput';
import type { SelfGroup } from '../../../lib/self';
import { EXPIRY_FORMAT, EXPIRY_PRESETS, parseExpiryText, QUICK_AMOUNTS, COUNT_CHOICES } from '../schema';

/** Renders quota per the display settings ($ or raw units). */
export function useQuotaText() {
  const { data: status } = useStatus();
  return (n: number, digits?: number) =>
    renderQuota(n, {
      displayInCurrency: status?.display_in_currency ?? true,
      quotaPerUnit: status?.quota_per_unit,
      digits,
    });
}

interface QuotaProps {
  value: number | null;
  onChange: (v: number | null) => void;
  onBlur: () => void;
  disabled: boolean;
}

/** Remain quota in quota units, with quick amounts (500000 = $1 … 500000000 = $1000). */
export function QuotaInput({ value, onChange, onBlur, disabled }: QuotaProps) {
  const quota = useQuotaText();
  return (
    <div>
      <IntegerInput
        value={value}
        onChange={onChange}
        onBlur={onBlur}
        min={0}
        step={500000}
        disabled={disabled}
        testid="token-form-quota"
      />
      <div className="tw-tok-quick">
        {QUICK_AMOUNTS.map((q) => (
          <Button
            key={q}
            size="small"
            type={value === q ? 'primary' : 'default'}
            ghost={value === q}
            disabled={disabled}
            onClick={() => onChange(q)}
            data-testid={`token-form-quick-${q}`}
          >
            {quota(q, 0)}
          </Button>
        ))}
      </div>
    </div>
  );
}

interface ExpiryProps {
  value: string;
  onChange: (v: string) => void;
  onBlur: () => void;
}

/** Expiry presets (never, 1 hour, 1 day, 1 month = 30 days) or a date-time picker; '' means never. */
export function ExpiryInput({ value, onChange, onBlur }: ExpiryProps) {
  const { t } = useTranslation('tokens');
  const at = parseExpiryText(value);
  const picked = at !== undefined && at !== -1 ? dayjs.unix(at) : null;
  return (
    <div>
      <DatePicker
        data-testid="token-form-expiry"
        showTime
        format={EXPIRY_FORMAT}
        value={picked}
        placeholder={value === '' ? t('expiry.never') : t('placeholder.expiry')}
        onChange={(d) => onChange(d ? d.format(EXPIRY_FORMAT) : '')}
        onBlur={(e) => {
          // Typed text that is not a date is kept, so the form shows the format error instead of saving "never".
          const typed = (e.target as HTMLInputElement).value;
          if (typed.trim() !== '' && parseExpiryText(typed) === undefined) onChange(typed);
          onBlur();
        }}
        style={{ width: '100%' }}
      />
      <div className="tw-tok-quick">
        {EXPIRY_PRESETS.map((p) => (
          <Button
            key={p.key}
            size="small"
            type={p.seconds === 0 && value === '' ? 'primary' : 'default'}
            ghost={p.seconds === 0 && value === ''}
            onClick={() => onChange(p.seconds === 0 ? '' : dayjs().add(p.seconds, 'second').format(EXPIRY_FORMAT))}
            data-testid={`token-form-expiry-${p.key}`}
          >
            {t(`expiry.${p.key}`)}
          </Button>
        ))}
      </div>
    </div>
  );
}

interface CountProps {
  value: number | null;
  onChange: (v: number | null) => void;
  onBlur: () => void;
}

/** How many tokens to create: 1 by default, quick choices 10, 20, 30, 100. */
export function CountInput({ value, onChange, onBlur }: CountProps) {
  return (
    <div>
      <IntegerInput
        value={value}
        onChange={onChange}
        onBlur={onBlur}
        min={1}
        max={TOKEN_MAX_BATCH}
        testid="token-form-count"
      />
      <div className="tw-tok-quick">
        {[1, ...COUNT_CHOICES].map((n) => (
          <Button
            key={n}
            size="small"
            type={value === n ? 'primary' : 'default'}
            ghost={value === n}
            onClick={() => onChange(n)}
          >
            {n}
          </Button>
        ))}
      </div>
    </div>
  );
}

/** Options of the group select: "follow user group" and every group open to the user, with its ratio. */
export function groupOptions(
  groups: Record<string, SelfGroup>,
  followLabel: string,
  ratioLabel: (r: number) => string,
) {
  return [
    { value: '', label: <Typography.Text type="secondary">{followLabel}</Typography.Text>, search: followLabel },
    ...Object.entries(groups).map(([name, g]) => ({
      value: name,
      search: `${name} ${g.desc}`,
      label: (
        <Flex justify="space-between" align="center" gap={8}>
          <span style={{ overflow: 'hidden', textOverflow: 'ellipsis' }}>
            {name}
            {g.desc && g.desc !== name ? <Typography.Text type="secondary"> · {g.desc}</Typography.Text> : null}
          </span>
          <Tag color={groupRatioColor(g.ratio)} style={{ marginInlineEnd: 0 }}>
            {ratioLabel(g.ratio)}
          </Tag>
        </Flex>
      ),
    })),
  ];
}
