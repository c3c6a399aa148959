import crypto from 'node:crypto';

/** A model generation's socket path and `domain` (Spark's published pairs). */
interface SparkRoute {
  path: string;
  domain: string;
}

/** Domains named as models, with their paths. */
const BY_DOMAIN: Readonly<Record<string, string>> = {
  lite: '/v1.1/chat',
  generalv3: '/v3.1/chat',
  'pro-128k': '/chat/pro-128k',
  'generalv3.5': '/v3.5/chat',
  'max-32k': '/chat/max-32k',
  '4.0Ultra': '/v4.0/chat',
};

/** API versions whose domain is not `general` + the version. */
const VERSION_DOMAIN: Readonly<Record<string, string>> = {
  'v1.1': 'lite',
  'v2.1': 'generalv2',
  'v3.1': 'generalv3',
  'v3.5': 'generalv3.5',
  'v4.0': '4.0Ultra',
};

export const DEFAULT_SPARK_VERSION = 'v1.1';

/**
 * Where a model is served: a domain named as the model (`generalv3.5`, `4.0Ultra`, …), else the version after the
 * model's one dash (`SparkDesk-v3.5`), else the channel's API version (its `other` field), else v1.1.
 */
export function sparkRoute(model: string, channelVersion: string): SparkRoute {
  const path = BY_DOMAIN[model];
  if (path) return { path, domain: model };
  const parts = model.split('-');
  const version = (parts.length === 2 && parts[1]) || channelVersion.trim() || DEFAULT_SPARK_VERSION;
  return { path: `/${version}/chat`, domain: VERSION_DOMAIN[version] ?? `general${version}` };
}

/**
 * Spark's signed socket URL: HMAC-SHA256 with the API secret over `host: …\ndate: …\nGET {path} HTTP/1.1`, the
 * signature and the API key in an `authorization` header value, base64-encoded, passed with `date` and `host` in
 * the query.
 */
export function sparkSignedUrl(url: URL, apiKey: string, apiSecret: string, date: string): URL {
  const origin = `host: ${url.host}\ndate: ${date}\nGET ${url.pathname} HTTP/1.1`;
  const signature = crypto.createHmac('sha256', apiSecret).update(origin).digest('base64');
  const authorization = Buffer.from(
    `api_key="${apiKey}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`,
  ).toString('base64');
  const signed = new URL(url);
  signed.search = new URLSearchParams({ authorization, date, host: url.host }).toString();
  return signed;
}
