import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { OptionKey } from '@tollway/shared';
import type { OptionsService } from '../core/options/service.js';

/** Cloudflare Turnstile's widget script and frames; allowed only while the bot check is on. */
export const TURNSTILE_ORIGIN = 'https://challenges.cloudflare.com';
/** Telegram's login widget script and its button frame; allowed only while Telegram sign-in is on. */
export const TELEGRAM_SCRIPT_ORIGIN = 'https://telegram.org';
export const TELEGRAM_FRAME_ORIGIN = 'https://oauth.telegram.org';

/** Headers every Fastify response carries (the console's pages, the API, assets, errors). */
export const FIXED_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

/** An API answer (JSON, an event stream) is never a page: nothing loads from it and nothing frames it. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * The fixed headers and the API policy, which every response carries unless its answer sets the same names (the
 * server's responses preset them: lib/gateway-response.ts). The relay's calls write their answers on the raw
 * response (past Fastify's hooks); Fastify's own answers replace the policy with the console's.
 */
export const RAW_SECURITY_HEAD: Readonly<Record<string, string>> = Object.freeze({
  ...FIXED_SECURITY_HEADERS,
  'content-security-policy': API_CONTENT_SECURITY_POLICY,
});

const NONCE_BYTES = 16;

/** The origin (scheme://host[:port]) of an http(s) address, else undefined. */
function httpOrigin(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (!/^https?:\/\//i.test(text)) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Home page and about content that is a single https address is shown in a frame. */
const framedPage = (content: string) => (/^https:\/\/\S+$/.test(content.trim()) ? httpOrigin(content) : undefined);

const unique = (list: (string | undefined)[]) => [...new Set(list.filter((s): s is string => s !== undefined))];

/** The options the policy depends on, read from memory on every request (no database access). */
interface PolicyInputs {
  turnstile: boolean;
  telegram: boolean;
  payAddress: string;
  homePage: string;
  about: string;
  chats: string;
}

/** The options read by readInputs; a change to any of them rebuilds the policy. */
const POLICY_OPTIONS: ReadonlySet<OptionKey> = new Set<OptionKey>([
  'TurnstileCheckEnabled',
  'TelegramOAuthEnabled',
  'PayAddress',
  'HomePageContent',
  'About',
  'Chats',
]);

function readInputs(o: OptionsService): PolicyInputs {
  return {
    turnstile: o.bool('TurnstileCheckEnabled'),
    telegram: o.bool('TelegramOAuthEnabled'),
    payAddress: o.get('PayAddress'),
    homePage: o.get('HomePageContent'),
    about: o.get('About'),
    chats: o.get('Chats'),
  };
}

/** Origins of the saved chat links ([{name: url}]), which the console shows in frames. */
function chatOrigins(raw: string): (string | undefined)[] {
  try {
    const list: unknown = JSON.parse(raw);
    if (!Array.isArray(list)) return [];
    return list.flatMap((entry: unknown) =>
      entry && typeof entry === 'object' ? Object.values(entry).map(httpOrigin) : [],
    );
  } catch {
    return [];
  }
}

/**
 * The Content-Security-Policy for a set of option values, with `{nonce}` where a page's own nonce goes.
 * Scripts come only from the site (no inline script, no eval), plus the widget hosts of the sign-in features
 * that are switched on; frames only from the pages the settings show in frames.
 */
function buildPolicy(i: PolicyInputs): string {
  const scripts = ["'self'", '{nonce}'];
  const frames = [framedPage(i.homePage), framedPage(i.about), ...chatOrigins(i.chats)];
  if (i.turnstile) {
    scripts.push(TURNSTILE_ORIGIN);
    frames.push(TURNSTILE_ORIGIN);
  }
  if (i.telegram) {
    // Telegram's widget compiles its data-onauth callback with eval.
    scripts.push(TELEGRAM_SCRIPT_ORIGIN, "'unsafe-eval'");
    frames.push(TELEGRAM_FRAME_ORIGIN);
  }
  const frameSrc = unique(frames);
  const directives = [
    "default-src 'self'",
    `script-src ${scripts.join(' ')}`,
    // Ant Design writes its CSS-in-JS styles into <style> elements at run time.
    "style-src 'self' 'unsafe-inline'",
    // Images in messages and settings may come from any https site; data: for icons.
    "img-src 'self' data: https:",
    // Task results play in the console: the gateway's own video content route, upstream https hosts, blob: players.
    "media-src 'self' https: blob:",
    "font-src 'self' data:",
    // The OIDC well-known document is fetched by the server (POST /api/oauth/oidc/discovery), not the console.
    "connect-src 'self'",
    `frame-src ${frameSrc.length > 0 ? frameSrc.join(' ') : "'none'"}`,
    "object-src 'none'",
    "base-uri 'self'",
    `form-action ${unique(["'self'", httpOrigin(i.payAddress)]).join(' ')}`,
    "frame-ancestors 'none'",
  ];
  return directives.join('; ');
}

/** Builds the policy from the live options, again only after one of its options changed (here or on another node). */
export class SecurityPolicy {
  private template: string | undefined;

  constructor(private readonly options: OptionsService) {
    options.onChange((key) => {
      if (POLICY_OPTIONS.has(key)) this.template = undefined;
    });
  }

  private current(): string {
    this.template ??= buildPolicy(readInputs(this.options));
    return this.template;
  }

  /** The policy for a response; a page that carries inline scripts of the operator's passes their nonce. */
  header(nonce?: string): string {
    return this.current().replace(' {nonce}', nonce ? ` 'nonce-${nonce}'` : '');
  }
}

/** A fresh nonce for one page. */
export const newNonce = (): string => crypto.randomBytes(NONCE_BYTES).toString('base64');

/**
 * Every response Fastify sends gets the fixed headers and the Content-Security-Policy; the console's page
 * replaces the policy with one that carries its nonce (see spa.ts).
 */
export function installSecurityHeaders(app: FastifyInstance, policy: SecurityPolicy): void {
  app.addHook('onRequest', (_req, reply, done) => {
    reply.headers(FIXED_SECURITY_HEADERS);
    reply.header('content-security-policy', policy.header());
    done();
  });
}
