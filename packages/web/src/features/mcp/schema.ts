import {
  MCP_HEADER_MASK,
  MCP_OAUTH_CLIENT_AUTH,
  MCP_TRANSPORTS,
  mcpServerFields,
  type McpServerBody,
  type McpTransport,
} from '@tollway/shared';
import { z } from 'zod';
import type { McpServer } from './api';

/** The longest server name (the shared schema's). */
export const NAME_MAX = 64;

/** One header row of the form; `stored`: the server holds a value for this name (shown as ***, kept unless retyped). */
const headerRow = z.object({ name: z.string().trim(), value: z.string(), stored: z.boolean() });
export type HeaderRow = z.infer<typeof headerRow>;

/** Whether `value` passes the shared schema's check of `field` (the server's own rule). */
const passes = (field: keyof typeof mcpServerFields.shape, value: unknown) =>
  mcpServerFields.shape[field].safeParse(value).success;

/** Form state of the server editor; messages are i18n keys translated by FormField. */
export const serverFormSchema = z
  .object({
    name: z.string().trim(),
    transport: z.enum(MCP_TRANSPORTS),
    url: z.string().trim(),
    command: z.string().trim(),
    /** One argument per line. */
    args: z.string(),
    headers: z.array(headerRow),
    /** A stored header was taken out (the rows alone cannot tell). */
    headers_removed: z.boolean(),
    enabled: z.boolean(),
    allow_tools: z.string().trim(),
    deny_tools: z.string().trim(),
    allow_groups: z.string().trim(),
    price: z.number('mcp:validation.whole').int('mcp:validation.whole').min(0, 'mcp:validation.whole'),
    read_only: z.boolean(),
    rate_limit: z.number('mcp:validation.whole').int('mcp:validation.whole').min(0, 'mcp:validation.whole'),
    max_concurrent: z.number('mcp:validation.whole').int('mcp:validation.whole').min(0, 'mcp:validation.whole'),
    log_arguments: z.boolean(),
    oauth_token_url: z.string().trim(),
    oauth_client_id: z.string().trim(),
    /** Typed only: a stored secret shows *** and is kept while this stays empty. */
    oauth_client_secret: z.string(),
    oauth_scope: z.string().trim(),
    oauth_audience: z.string().trim(),
    oauth_client_auth: z.enum(MCP_OAUTH_CLIENT_AUTH),
  })
  .superRefine((v, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (!passes('name', v.name)) issue(['name'], 'mcp:validation.name');
    if (v.transport === 'stdio' ? !v.command : !v.url)
      issue([v.transport === 'stdio' ? 'command' : 'url'], 'mcp:validation.required');
    if (!passes('price', v.price)) issue(['price'], 'mcp:validation.whole');
    for (const f of [
      'allow_tools',
      'deny_tools',
      'allow_groups',
      'oauth_token_url',
      'oauth_client_id',
      'oauth_client_secret',
      'oauth_scope',
      'oauth_audience',
    ] as const)
      if (!passes(f, v[f])) issue([f], 'mcp:validation.tooLong');
    const changed = headersChanged(v);
    v.headers.forEach((h, i) => {
      if (!passes('headers', { [h.name]: '' })) issue(['headers', i, 'name'], 'mcp:validation.headerName');
      // Sending headers replaces them all: once anything changed, every value is needed again.
      else if (changed && h.value === '') issue(['headers', i, 'value'], 'mcp:validation.headerValue');
    });
  });
export type ServerForm = z.infer<typeof serverFormSchema>;

/** Whether the headers differ from what the server holds: a row added, removed or renamed, or a value typed. */
export function headersChanged(v: Pick<ServerForm, 'headers' | 'headers_removed'>): boolean {
  return v.headers_removed || v.headers.some((h) => !h.stored || h.value !== '');
}

export function formDefaults(server?: McpServer): ServerForm {
  return {
    name: server?.name ?? '',
    transport: server?.transport ?? 'http',
    url: server?.url ?? '',
    command: server?.command ?? '',
    args: (server?.args ?? []).join('\n'),
    headers: Object.keys(server?.headers ?? {}).map((name) => ({ name, value: '', stored: true })),
    headers_removed: false,
    enabled: server?.enabled ?? true,
    allow_tools: server?.allow_tools ?? '',
    deny_tools: server?.deny_tools ?? '',
    allow_groups: server?.allow_groups ?? '',
    price: server?.price ?? 0,
    read_only: server?.read_only ?? false,
    rate_limit: server?.rate_limit ?? 0,
    max_concurrent: server?.max_concurrent ?? 0,
    log_arguments: server?.log_arguments ?? false,
    oauth_token_url: server?.oauth_token_url ?? '',
    oauth_client_id: server?.oauth_client_id ?? '',
    oauth_client_secret: '',
    oauth_scope: server?.oauth_scope ?? '',
    oauth_audience: server?.oauth_audience ?? '',
    oauth_client_auth: server?.oauth_client_auth ?? 'client_secret_basic',
  };
}

/** The request body; `headers` only when they changed (the API replaces every stored header when it is sent). */
export function toBody(v: ServerForm): McpServerBody & { name: string; transport: McpTransport } {
  const stdio = v.transport === 'stdio';
  const body: McpServerBody & { name: string; transport: McpTransport } = {
    name: v.name,
    transport: v.transport,
    url: stdio ? '' : v.url,
    command: stdio ? v.command : '',
    args: stdio
      ? v.args
          .split(/\r?\n/)
          .map((s) => s.trim())
          .filter(Boolean)
      : [],
    enabled: v.enabled,
    allow_tools: v.allow_tools,
    deny_tools: v.deny_tools,
    allow_groups: v.allow_groups,
    price: v.price,
    read_only: v.read_only,
    rate_limit: v.rate_limit,
    max_concurrent: v.max_concurrent,
    log_arguments: v.log_arguments,
    oauth_token_url: v.oauth_token_url,
    oauth_client_id: v.oauth_client_id,
    oauth_scope: v.oauth_scope,
    oauth_audience: v.oauth_audience,
    oauth_client_auth: v.oauth_client_auth,
  };
  // Left empty, the stored secret is kept (the API keeps it when the field is absent).
  if (v.oauth_client_secret) body.oauth_client_secret = v.oauth_client_secret;
  if (headersChanged(v)) body.headers = Object.fromEntries(v.headers.map((h) => [h.name, h.value]));
  return body;
}

/** What a stored header's value shows. */
export const STORED_VALUE = MCP_HEADER_MASK;
