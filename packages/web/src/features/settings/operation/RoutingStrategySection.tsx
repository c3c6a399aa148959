import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { ROUTING_STRATEGIES, type OptionKey, type RoutingStrategyName } from '@tollway/shared';
import { Alert, Button, Col, Flex, Form, Input, Select, Typography } from 'antd';
import { useRef, useState } from 'react';
import { useController } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { OptionField } from '../components/OptionField';
import { SettingsSection } from '../components/SettingsSection';
import { fieldName } from '../model/options';

const KEYS: OptionKey[] = ['RoutingStrategy'];
const FIELD = fieldName('RoutingStrategy');

type Scope = 'groups' | 'models';

/** One per-group or per-model entry as the editor shows it. */
interface Rule {
  scope: Scope;
  name: string;
  strategy: RoutingStrategyName;
}

interface Setting {
  fallback: RoutingStrategyName;
  rules: Rule[];
}

const isStrategy = (v: unknown): v is RoutingStrategyName =>
  typeof v === 'string' && (ROUTING_STRATEGIES as readonly string[]).includes(v);

/** The option's JSON as the editor's rows; null when it is not the setting's shape (the JSON view shows why). */
export function parseRouting(text: string): Setting | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const o = parsed as Record<string, unknown>;
  const fallback = o.default ?? 'weighted';
  if (!isStrategy(fallback)) return null;
  const rules: Rule[] = [];
  for (const scope of ['groups', 'models'] as const) {
    const map = o[scope] ?? {};
    if (!map || typeof map !== 'object' || Array.isArray(map)) return null;
    for (const [name, strategy] of Object.entries(map)) {
      if (!isStrategy(strategy)) return null;
      rules.push({ scope, name, strategy });
    }
  }
  return { fallback, rules };
}

export function routingText(s: Setting): string {
  const pick = (scope: Scope) =>
    Object.fromEntries(s.rules.filter((r) => r.scope === scope).map((r) => [r.name, r.strategy]));
  return JSON.stringify({ default: s.fallback, groups: pick('groups'), models: pick('models') }, null, 2);
}

/** The default strategy and the per-group and per-model entries, kept in step with the option's JSON text. */
function RoutingEditor({ initial, onRules }: { initial: Setting; onRules: (rules: Rule[]) => void }) {
  const { t } = useTranslation('settings');
  const { field } = useController({ name: FIELD });
  const [setting, setSetting] = useState(initial);
  // Every change starts from the latest rows, not the ones of the last render: two changes in quick succession (a
  // choice, then a click on Add before React rendered it) must not undo the first.
  const latest = useRef(initial);
  const update = (change: (s: Setting) => Setting) => {
    const next = change(latest.current);
    latest.current = next;
    setSetting(next);
    onRules(next.rules);
    field.onChange(routingText(next));
  };
  const setRule = (i: number, patch: Partial<Rule>) =>
    update((s) => ({ ...s, rules: s.rules.map((r, j) => (j === i ? { ...r, ...patch } : r)) }));
  const strategyOptions = ROUTING_STRATEGIES.map((s) => ({ value: s, label: t(`routing.strategy.${s}`) }));
  const seen = new Set<string>();
  const dupes = new Set<number>();
  setting.rules.forEach((r, i) => {
    const id = `${r.scope}:${r.name.trim()}`;
    if (seen.has(id)) dupes.add(i);
    seen.add(id);
  });
  return (
    <>
      <Form.Item label={t('routing.default')} extra={t(`routing.when.${setting.fallback}`)}>
        <Select
          value={setting.fallback}
          options={strategyOptions}
          onChange={(fallback: RoutingStrategyName) => update((s) => ({ ...s, fallback }))}
          style={{ maxWidth: 320 }}
          aria-label={t('routing.default')}
          data-testid="routing-default"
        />
      </Form.Item>
      <Form.Item label={t('routing.rules')} extra={t('routing.rulesHelp')}>
        <Flex vertical gap={8} data-testid="routing-rules">
          {setting.rules.map((r, i) => (
            <Flex key={i} gap={8} wrap align="flex-start" data-testid={`routing-rule-${i}`}>
              <Select
                value={r.scope}
                onChange={(scope: Scope) => setRule(i, { scope })}
                options={[
                  { value: 'groups', label: t('routing.group') },
                  { value: 'models', label: t('routing.model') },
                ]}
                style={{ width: 110 }}
                aria-label={t('routing.scope')}
              />
              <Input
                value={r.name}
                onChange={(ev) => setRule(i, { name: ev.target.value })}
                placeholder={r.scope === 'groups' ? 'vip' : 'gpt-4o'}
                status={!r.name.trim() || dupes.has(i) ? 'error' : undefined}
                style={{ flex: '1 1 160px', maxWidth: 280 }}
                aria-label={t('routing.name')}
                data-testid={`routing-name-${i}`}
              />
              <Select
                value={r.strategy}
                onChange={(strategy: RoutingStrategyName) => setRule(i, { strategy })}
                options={strategyOptions}
                style={{ width: 220 }}
                aria-label={t('routing.strategyLabel')}
                data-testid={`routing-strategy-${i}`}
              />
              <Button
                icon={<DeleteOutlined />}
                aria-label={t('common:action.delete')}
                onClick={() => update((s) => ({ ...s, rules: s.rules.filter((_, j) => j !== i) }))}
              />
            </Flex>
          ))}
          {dupes.size > 0 ? <Typography.Text type="danger">{t('routing.duplicate')}</Typography.Text> : null}
          <div>
            <Button
              icon={<PlusOutlined />}
              type="dashed"
              onClick={() =>
                update((s) => ({ ...s, rules: [...s.rules, { scope: 'groups', name: '', strategy: 'latency' }] }))
              }
              data-testid="routing-add"
            >
              {t('routing.add')}
            </Button>
          </div>
        </Flex>
      </Form.Item>
    </>
  );
}

/** The editor over the field's current text, or the raw JSON field when that text is not the setting's shape. */
function RoutingFields({ onRules }: { onRules: (rules: Rule[]) => void }) {
  const { t } = useTranslation('settings');
  const { field } = useController({ name: FIELD });
  const [initial] = useState(() => parseRouting(String(field.value ?? '')));
  if (!initial)
    return (
      <>
        <Col span={24}>
          <Alert type="warning" showIcon title={t('routing.broken')} style={{ marginBottom: 16 }} />
        </Col>
        <OptionField k="RoutingStrategy" />
      </>
    );
  return (
    <Col span={24}>
      <RoutingEditor initial={initial} onRules={onRules} />
    </Col>
  );
}

/**
 * Routing strategies: how a channel is chosen inside a priority tier, by default and per group or model (a model's
 * entry over its group's). Rows with an empty or repeated name are refused before saving.
 */
export function RoutingStrategySection() {
  const { t } = useTranslation('settings');
  // The editor's rows: two rows of one name collapse into one JSON key, so they are checked here, not in the text.
  const edited = useRef<Rule[] | undefined>(undefined);
  const beforeSave = (values: Record<string, unknown>) => {
    const rules = edited.current ?? parseRouting(String(values[FIELD] ?? ''))?.rules;
    if (!rules) return null;
    const ids = rules.map((r) => `${r.scope}:${r.name.trim()}`);
    if (rules.some((r) => !r.name.trim())) return t('routing.nameRequired');
    if (new Set(ids).size !== ids.length) return t('routing.duplicate');
    return null;
  };
  return (
    <SettingsSection
      id="routing"
      title={t('section.routing.title')}
      description={t('section.routing.desc')}
      keys={KEYS}
      beforeSave={beforeSave}
    >
      <RoutingFields onRules={(rules) => (edited.current = rules)} />
    </SettingsSection>
  );
}
