import { baseUrlOf } from '../base-url.js';
import { UpstreamPrepareError } from '../prepare.js';
import type { UpstreamAdaptor } from '../types.js';
import { DataLineFramer } from './stream.js';

/**
 * AI Proxy Library (type 21): `POST {base}/api/library/ask` with a Bearer key; the library id is the channel's
 * `other` field, put into the body here.
 */
export const aiProxyLibraryAdaptor: UpstreamAdaptor<'aiproxy-library'> = {
  format: 'aiproxy-library',
  target({ channel, key }) {
    return {
      url: new URL(`${baseUrlOf(channel)}/api/library/ask`),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    };
  },
  prepare({ channel }, req) {
    const libraryId = channel.other.trim();
    if (!libraryId)
      throw new UpstreamPrepareError(
        'this AI Proxy Library channel names no library: put its id in the other field',
        400,
      );
    return { url: req.url, headers: req.headers, body: JSON.stringify({ ...req.body, libraryId }) };
  },
  streamFramer: () => new DataLineFramer(),
};
