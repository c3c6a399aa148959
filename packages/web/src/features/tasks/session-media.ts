import { useEffect, useState } from 'react';
import { getStoredUser } from '../../lib/storage';

/** The gateway's own media routes (an OpenAI-compatible video's content) need the console's New-Api-User header. */
export const needsSession = (url: string) => url.startsWith('/v1/videos/');

/**
 * A media URL the browser can play: the URL itself, or for the gateway's own routes the file fetched with the
 * session's header into a blob URL (revoked when the player goes). `failed` when that fetch was refused.
 */
export function useSessionMedia(url: string, active: boolean): { src: string | undefined; failed: boolean } {
  const session = needsSession(url);
  const [state, setState] = useState<{ src: string | undefined; failed: boolean }>({ src: undefined, failed: false });
  useEffect(() => {
    if (!session || !active) return;
    const abort = new AbortController();
    let blobUrl: string | undefined;
    const user = getStoredUser();
    setState({ src: undefined, failed: false });
    fetch(url, {
      headers: user ? { 'New-Api-User': String(user.id) } : {},
      signal: abort.signal,
      credentials: 'same-origin',
    })
      .then(async (res) => {
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        blobUrl = URL.createObjectURL(await res.blob());
        setState({ src: blobUrl, failed: false });
      })
      .catch(() => {
        if (!abort.signal.aborted) setState({ src: undefined, failed: true });
      });
    return () => {
      abort.abort();
      if (blobUrl) URL.revokeObjectURL(blobUrl);
    };
  }, [url, session, active]);
  return session ? state : { src: url, failed: false };
}
