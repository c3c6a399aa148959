import http, { type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { LINGER_LIMITS, lingerOnClose, type LingerLimits } from './lingering-close.js';

type HeadValue = string | number | string[];
/** Headers an answer carries by default, by lower-case name. */
export type PresetHead = Readonly<Record<string, HeadValue>>;

/**
 * A node:http response whose headers set ahead of the answer (the fixed security headers, a relay call's request
 * id) go out with it in its one `writeHead`, instead of through `setHeader` one by one: each setHeader validates,
 * lower-cases and stores its header, and a writeHead after it passes every header of the answer through setHeader
 * again (about 23,000 instructions a relay call for ten headers, measured by callgrind). Node validates the merged
 * headers once when it writes them, as it does any writeHead's.
 *
 * What wins, as with setHeader before writeHead: the answer's own header of the same name, then one set with
 * setHeader, then the preset. The answer's names are compared as they are given: the server writes its own in lower
 * case (Fastify lower-cases its replies' headers).
 *
 * An answer that ends its connection before the request's body was read closes it lingering (lib/lingering-close.ts).
 */
export class GatewayResponse extends http.ServerResponse {
  /** The preset headers (copy on write: the class's default is shared by every response). */
  declare presetHead: PresetHead;
  /** How long a connection ended before its request's body was read drops what still arrives. */
  declare lingerLimits: LingerLimits;
  /** Node's own mark of an answer after which it closes the connection (`connection: close`, HTTP/1.0, ...). */
  declare private _last: boolean;
  /** Whether setHeader was used: the answer then takes the preset through setHeader where it did not set a name. */
  declare private headerSet: boolean;

  override setHeader(name: string, value: HeadValue): this {
    this.headerSet = true;
    return super.setHeader(name, value);
  }

  override writeHead(
    statusCode: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
    const given =
      reason === undefined ? (reasonOrHeaders as OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined) : headers;
    const preset = this.presetHead;
    if (this.headerSet || Array.isArray(given) || this.headersSent) {
      // The rare path: Node merges the answer's headers into those set with setHeader.
      if (!this.headersSent) for (const name in preset) if (!this.hasHeader(name)) super.setHeader(name, preset[name]!);
      return reason === undefined ? super.writeHead(statusCode, given) : super.writeHead(statusCode, reason, given);
    }
    const merged: OutgoingHttpHeaders = given ? { ...preset, ...given } : preset;
    return reason === undefined ? super.writeHead(statusCode, merged) : super.writeHead(statusCode, reason, merged);
  }

  /** Node detaches the socket once the answer is written, and closes the connection next when `_last` is set. */
  override detachSocket(socket: Socket): void {
    if (this._last && !this.req.complete) lingerOnClose(socket, this.req, this.lingerLimits);
    super.detachSocket(socket);
  }
}

GatewayResponse.prototype.presetHead = {};
GatewayResponse.prototype.lingerLimits = LINGER_LIMITS;
Object.defineProperty(GatewayResponse.prototype, 'headerSet', { value: false, writable: true });

/**
 * A GatewayResponse class whose every response carries `fixed` unless its answer sets the same names, typed as the
 * class node:http's server options take (`ServerResponse`).
 */
export function gatewayResponseClass(fixed: PresetHead, linger = LINGER_LIMITS): typeof http.ServerResponse {
  for (const [name, value] of Object.entries(fixed)) validateHeader(name, value);
  class FixedHeadResponse extends GatewayResponse {}
  FixedHeadResponse.prototype.presetHead = Object.freeze({ ...fixed });
  FixedHeadResponse.prototype.lingerLimits = linger;
  return FixedHeadResponse as unknown as typeof http.ServerResponse;
}

/** Throws, as setHeader would, on a name or value Node refuses: a preset fails where it is set, not at the answer. */
function validateHeader(name: string, value: HeadValue): void {
  http.validateHeaderName(name);
  if (Array.isArray(value)) for (const v of value) http.validateHeaderValue(name, v);
  else http.validateHeaderValue(name, String(value));
}

/**
 * Sets a header for the answer to come: preset on a GatewayResponse (no setHeader), else with setHeader. `name` in
 * lower case.
 */
export function presetHeader(res: http.ServerResponse, name: string, value: HeadValue): void {
  if (res instanceof GatewayResponse && !res.headersSent) {
    validateHeader(name, value);
    res.presetHead = { ...res.presetHead, [name]: value };
  } else res.setHeader(name, value);
}
