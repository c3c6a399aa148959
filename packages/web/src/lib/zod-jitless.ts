import { z } from 'zod';

// Zod's compiled fast path probes `new Function`, which the Content-Security-Policy refuses (and reports as a
// violation); this module is imported first so every schema is built without it.
z.config({ jitless: true });
