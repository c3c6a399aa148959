import { createRequire } from 'node:module';
import { Client, type Dispatcher, type Pool } from 'undici';

/**
 * undici's dispatcher base (argument checks, close/destroy bookkeeping) and the symbols of its hooks and counts;
 * undici exports neither publicly.
 */
const undiciRequire = createRequire(import.meta.url);
const DispatcherBase = undiciRequire('undici/lib/dispatcher/dispatcher-base.js') as new () => Dispatcher;
const sym = undiciRequire('undici/lib/core/symbols.js') as Record<
  'kDispatch' | 'kClose' | 'kDestroy' | 'kUrl' | 'kConnected' | 'kRunning' | 'kPending' | 'kSize' | 'kNeedDrain',
  symbol
>;
type Internals = Record<symbol, unknown>;
/** A client's drain state when it has no call to report the end of (undici: 0 idle, 1 scheduled, 2 busy). */
const IDLE = 0;

/**
 * An HTTP/1.1 keep-alive pool of one origin without a connection limit: a call takes the most recently freed
 * connection, or a new one when none is free, in constant time. undici's Pool scans every connection for a free one
 * on each call (twice when it finds none), which with thousands of open streams is most of a call's dispatch cost.
 * A connection is forgotten when it closes while idle (keep-alive timeout, upstream closing it).
 */
export class UnlimitedPool extends DispatcherBase {
  private readonly clients = new Set<Client>();
  /** Free connections, the most recently freed last, and each one's place there. */
  private readonly idle: Client[] = [];
  private readonly idleAt = new Map<Client, number>();

  constructor(
    origin: string | URL,
    private readonly opts: Client.Options,
  ) {
    super();
    (this as unknown as Internals)[sym.kUrl] = new URL(String(origin));
  }

  private get origin(): URL {
    return (this as unknown as Internals)[sym.kUrl] as URL;
  }

  [sym.kDispatch](opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const client = this.takeIdle() ?? this.newClient();
    // One call per connection: a client answers false and says 'drain' once the call is over. A call refused at once
    // (a header undici rejects) also answers false but leaves the client idle, with no 'drain' to come.
    if (client.dispatch(opts, handler) || (client as unknown as Internals)[sym.kNeedDrain] === IDLE)
      this.putIdle(client);
    return true;
  }

  private newClient(): Client {
    const client = new Client(this.origin, this.opts);
    this.clients.add(client);
    client.on('drain', () => this.putIdle(client));
    client.on('connect', (origin, targets) => this.emit('connect', origin, [this, ...targets]));
    client.on('disconnect', (origin, targets, err) => {
      if (this.idleAt.has(client)) this.forget(client);
      this.emit('disconnect', origin, [this, ...targets], err);
    });
    client.on('connectionError', (origin, targets, err) =>
      this.emit('connectionError', origin, [this, ...targets], err),
    );
    return client;
  }

  private takeIdle(): Client | undefined {
    const client = this.idle.pop();
    if (client) this.idleAt.delete(client);
    return client;
  }

  private putIdle(client: Client): void {
    if (this.idleAt.has(client) || !this.clients.has(client)) return;
    this.idleAt.set(client, this.idle.length);
    this.idle.push(client);
  }

  /** Drops an idle connection that closed: the last idle one takes its place. */
  private forget(client: Client): void {
    const at = this.idleAt.get(client)!;
    this.idleAt.delete(client);
    const last = this.idle.pop()!;
    if (last !== client) {
      this.idle[at] = last;
      this.idleAt.set(last, at);
    }
    this.clients.delete(client);
    void client.close().catch(() => undefined);
  }

  [sym.kClose](): Promise<unknown> {
    return Promise.all([...this.clients].map((c) => c.close()));
  }

  [sym.kDestroy](err: Error | null): Promise<unknown> {
    return Promise.all([...this.clients].map((c) => c.destroy(err)));
  }

  /** undici's pool counts over every connection (the connection gauges read them at scrape time, never per call). */
  get stats(): Pool.PoolStats {
    const s: Pool.PoolStats = { connected: 0, free: 0, pending: 0, queued: 0, running: 0, size: 0 };
    for (const c of this.clients) {
      const i = c as unknown as Internals;
      const connected = Number(i[sym.kConnected] ?? 0);
      s.connected += connected;
      s.free += connected && this.idleAt.has(c) ? 1 : 0;
      s.pending += Number(i[sym.kPending] ?? 0);
      s.running += Number(i[sym.kRunning] ?? 0);
      s.size += Number(i[sym.kSize] ?? 0);
    }
    return s;
  }
}
