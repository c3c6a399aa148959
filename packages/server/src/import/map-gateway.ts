import { ChannelType } from '@tollway/shared';
import { abilityRows, rebuildAbilities } from '../core/routing/abilities.js';
import type { ChannelRow } from '../core/routing/channel-row.js';
import type { TableSpec } from './copy.js';
import type { TableReport } from './report.js';
import { IMPORTED_BATCH, userRef, type MapContext } from './context.js';
import { mapOneApiType, type TypeMapping } from './one-api-types.js';
import { flag, jsonObject, meaningful, num, ref, text, type Row } from './values.js';
import { settingsProblem } from '../core/routing/channel-settings.js';
import { readHeaderOverride } from '../core/routing/header-override.js';

/** Channel columns of new-api / one-api Tollway has no place for: kept out, and counted in the summary. */
const CHANNEL_EXTRAS: [column: string, why: string][] = [
  [
    'config',
    "one-api's channel config (region, AK/SK, API version…) has no Tollway column; set it in the channel's key or other field",
  ],
  ['need_reconcile', 'Tollway has no hourly reconciliation'],
];
/** new-api's remark column is varchar(255); so is Tollway's. */
const REMARK_MAX = 255;
const FAILURE = 'FAILURE';
/** Manually disabled channel status. */
const CHANNEL_DISABLED = 2;
const MS_PER_SECOND = 1000;
const SUCCESS = 'SUCCESS';

/**
 * What of a channel's settings and header_override Tollway would refuse on save: copied all the same (a setting
 * Tollway cannot honour does nothing; a header entry breaking a safety rule is skipped on every call).
 */
function channelExtrasNotes(r: Row): string[] {
  const out: string[] = [];
  const setting = settingsProblem(jsonObject(r.settings));
  if (setting)
    out.push(
      `channels.settings.${setting.setting}: ${setting.kind === 'invalid' ? 'a value of the wrong type' : 'a value Tollway does not support'}; kept, not applied`,
    );
  const header = readHeaderOverride(jsonObject(r.header_override), true);
  if (header && 'kind' in header)
    out.push(
      `channels.header_override: "${header.header}" breaks Tollway's header rules (${header.kind}); kept, that entry is not sent`,
    );
  return out;
}

export function channelsSpec(ctx: MapContext): TableSpec {
  return {
    source: 'channels',
    target: 'channels',
    map(r, report) {
      for (const [column, why] of CHANNEL_EXTRAS)
        if (meaningful(r[column]) && text(r[column]) !== '0')
          report.note(`channels.${column}: ${why}`, `id ${num(r.id)}`);
      for (const why of channelExtrasNotes(r)) report.note(why, `id ${num(r.id)}`);
      ctx.channelNames.set(num(r.id), text(r.name));
      let kind: TypeMapping = { type: num(r.type, 1), baseUrl: text(r.base_url) };
      if (ctx.product === 'one-api') kind = mapOneApiType(kind.type, kind.baseUrl);
      if (kind.note) report.note(kind.note, `id ${num(r.id)}`);
      return {
        id: num(r.id) + ctx.off.channels,
        type: kind.type,
        // Sealed the way the channel store writes keys (plaintext without CRYPTO_SECRET).
        key: ctx.box.seal(text(r.key)),
        openai_organization: text(r.openai_organization),
        test_model: text(r.test_model),
        status: kind.disable ? CHANNEL_DISABLED : num(r.status, 1),
        name: text(r.name),
        weight: num(r.weight),
        created_time: num(r.created_time),
        test_time: num(r.test_time),
        response_time: num(r.response_time),
        base_url: kind.baseUrl,
        other: text(r.other),
        balance: num(r.balance),
        balance_updated_time: num(r.balance_updated_time),
        models: text(r.models),
        group: text(r.group) || 'default',
        used_quota: num(r.used_quota),
        model_mapping: text(r.model_mapping),
        status_code_mapping: text(r.status_code_mapping),
        priority: num(r.priority),
        auto_ban: num(r.auto_ban, 1),
        other_info: text(r.other_info),
        tag: text(r.tag),
        setting: text(r.setting),
        param_override: text(r.param_override),
        system_prompt: text(r.system_prompt),
        max_input_tokens: 0,
        model_prefix: '',
        expired_time: 0,
        channel_info: text(r.channel_info),
        // Copied as they are; what Tollway would refuse on save is kept but noted (see channelExtrasNotes).
        settings: text(r.settings),
        header_override: text(r.header_override),
        remark: text(r.remark).slice(0, REMARK_MAX),
      };
    },
    // Abilities are rebuilt from each written channel, as Tollway's channel store does.
    after: async (trx, rows) => {
      await rebuildAbilities(trx, rows as unknown as ChannelRow[]);
      ctx.abilities.written += (rows as unknown as ChannelRow[]).flatMap(abilityRows).length;
    },
  };
}

export function logsSpec(ctx: MapContext, since: number): TableSpec {
  return {
    source: 'logs',
    target: 'logs',
    filter: since > 0 ? (q) => q.where('created_at', '>=', since) : undefined,
    map: (r) => ({
      id: num(r.id) + ctx.off.logs,
      user_id: userRef(ctx, r.user_id),
      created_at: num(r.created_at),
      type: num(r.type),
      content: text(r.content),
      username: text(r.username),
      token_name: text(r.token_name),
      model_name: text(r.model_name),
      quota: num(r.quota),
      prompt_tokens: num(r.prompt_tokens),
      completion_tokens: num(r.completion_tokens),
      // one-api names it elapsed_time (milliseconds); new-api's use_time is seconds.
      use_time: r.use_time !== undefined ? num(r.use_time) : Math.round(num(r.elapsed_time) / MS_PER_SECOND),
      is_stream: flag(r.is_stream),
      channel_id: ref(r.channel_id, ctx.off.channels),
      channel_name: text(r.channel_name) || (ctx.channelNames.get(num(r.channel_id)) ?? ''),
      token_id: ref(r.token_id, ctx.off.tokens),
      group: text(r.group),
      ip: text(r.ip),
      request_id: text(r.request_id),
      other: text(r.other),
    }),
  };
}

/** Task rows were charged at submit by the source and refunded there when they failed: neither happens again. */
const batches = (status: string) => ({
  charge_batch: IMPORTED_BATCH,
  refund_batch: status === FAILURE ? IMPORTED_BATCH : '',
});

export function midjourneysSpec(ctx: MapContext): TableSpec {
  return {
    source: 'midjourneys',
    target: 'midjourneys',
    map(r) {
      const status = text(r.status);
      const action = text(r.action);
      return {
        id: num(r.id) + ctx.off.midjourneys,
        code: num(r.code),
        user_id: userRef(ctx, r.user_id),
        action,
        mj_id: text(r.mj_id),
        prompt: text(r.prompt),
        prompt_en: text(r.prompt_en),
        description: text(r.description),
        submit_time: num(r.submit_time),
        start_time: num(r.start_time),
        finish_time: num(r.finish_time),
        image_url: text(r.image_url),
        status,
        progress: text(r.progress),
        fail_reason: text(r.fail_reason),
        channel_id: ref(r.channel_id, ctx.off.channels),
        quota: num(r.quota),
        group: '',
        token_id: 0,
        model_name: action ? `mj_${action.toLowerCase()}` : '',
        request_id: '',
        properties: text(r.properties),
        private_data: '',
        updated_at: num(r.finish_time) || num(r.submit_time),
        buttons: text(r.buttons),
        video_url: text(r.video_url),
        video_urls: text(r.video_urls),
        mode: '',
        state: text(r.state),
        ...batches(status),
      };
    },
  };
}

/** Tollway's task platforms; newer new-api names video platforms by their channel type's number. */
const PLATFORMS = new Set(['suno', 'kling', 'sora', 'jimeng', 'vidu', 'doubao']);
const PLATFORM_OF_TYPE: Record<string, string> = {
  [ChannelType.Kling]: 'kling',
  [ChannelType.Sora]: 'sora',
  [ChannelType.Jimeng]: 'jimeng',
  [ChannelType.Vidu]: 'vidu',
  [ChannelType.DoubaoVideo]: 'doubao',
};

function taskPlatform(platform: string, report: TableReport, example: string): string {
  const named = PLATFORM_OF_TYPE[platform] ?? platform;
  if (!PLATFORMS.has(named))
    report.note(
      `tasks.platform "${platform}": Tollway does not poll it; an unfinished task fails with a refund at TASK_TIMEOUT_MINUTES`,
      example,
    );
  return named;
}

export function tasksSpec(ctx: MapContext): TableSpec {
  return {
    source: 'tasks',
    target: 'tasks',
    map(r, report) {
      const status = text(r.status);
      const priv = jsonObject(r.private_data);
      const props = jsonObject(r.properties);
      const taskId = text(r.task_id);
      // Before new-api kept the upstream's id apart, task_id was the upstream's id; the result URL sat in fail_reason.
      const legacyUrl = status === SUCCESS && /^https?:\/\//.test(text(r.fail_reason)) ? text(r.fail_reason) : '';
      return {
        id: num(r.id) + ctx.off.tasks,
        task_id: taskId,
        platform: taskPlatform(text(r.platform), report, `id ${num(r.id)}`),
        user_id: userRef(ctx, r.user_id),
        channel_id: ref(r.channel_id, ctx.off.channels),
        quota: num(r.quota),
        action: text(r.action),
        status,
        fail_reason: text(r.fail_reason),
        submit_time: num(r.submit_time),
        start_time: num(r.start_time),
        finish_time: num(r.finish_time),
        progress: text(r.progress),
        data: text(r.data),
        group: text(r.group),
        token_id: ref(priv.token_id, ctx.off.tokens),
        model_name: text(props.origin_model_name),
        request_id: '',
        properties: text(r.properties),
        private_data: text(r.private_data),
        updated_at: num(r.updated_at) || num(r.finish_time) || num(r.submit_time),
        result_url: text(priv.result_url) || legacyUrl,
        upstream_task_id: text(priv.upstream_task_id) || taskId,
        ...batches(status),
      };
    },
  };
}

/** new-api's hourly usage per user and model (the data dashboard): the same columns as Tollway's. */
export function quotaDataSpec(ctx: MapContext): TableSpec {
  return {
    source: 'quota_data',
    target: 'quota_data',
    map: (r) => ({
      id: num(r.id) + ctx.off.quota_data,
      user_id: userRef(ctx, r.user_id),
      username: text(r.username),
      model_name: text(r.model_name),
      created_at: num(r.created_at),
      token_used: num(r.token_used),
      count: num(r.count),
      quota: num(r.quota),
    }),
  };
}
