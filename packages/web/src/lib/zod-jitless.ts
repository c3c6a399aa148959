import { config } from 'zod/v4/core';

// Zod's compiled fast path probes `new Function`, which the Content-Security-Policy refuses (and reports as a
// violation); this module is imported first so every schema is built without it. (Only zod's core config is
// imported here, so the entry chunk does not carry the schema library.)
config({ jitless: true });
