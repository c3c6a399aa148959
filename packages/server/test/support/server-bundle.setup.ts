// Vitest global setup of the integration project: the process tests run the production bundle, so it is
// rebuilt here when the sources are newer (a narrowed `npx vitest run` without `npm test` first).
import { buildServer, serverIsStale } from '../../../../scripts/server-build.mjs';

export default async function setup(): Promise<void> {
  if (serverIsStale()) await buildServer();
}
