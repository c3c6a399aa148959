/** Listen addresses that mean "every interface" or this machine only: a browser here opens them as localhost. */
const LOCAL_HOSTS = new Set(['', '0.0.0.0', '::', '127.0.0.1', '::1', 'localhost']);

/**
 * The page to open once the server listens, as the start-up line says it: the console on the configured port, or
 * its setup page while the administrator is not set up (every page leads there until then).
 */
export function startUrl(opts: { port: number; host?: string; setUp: boolean }): string {
  const host = opts.host?.trim() ?? '';
  const name = LOCAL_HOSTS.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${opts.port}${opts.setUp ? '/' : '/setup'}`;
}
