import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
/** Text assets worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|svg|json|txt|map|wasm)$/;
/** Below this size the encoded copy saves less than its headers cost. */
const MIN_COMPRESS_BYTES = 64;

/**
 * Writes a brotli (.br, best quality) and a gzip (.gz) copy next to each text asset of the build, kept only when
 * smaller; the server picks one by Accept-Encoding. index.html is left out: the server rewrites it per request.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'tollway-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = (await fs.readdir(outDir, { recursive: true })).filter((f) => COMPRESSIBLE.test(f));
      await Promise.all(
        files.map(async (f) => {
          const file = path.join(outDir, f);
          const raw = await fs.readFile(file);
          if (raw.length < MIN_COMPRESS_BYTES) return;
          const br = await brotli(raw, {
            params: {
              [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
            },
          });
          const gz = await gzip(raw, { level: zlib.constants.Z_BEST_COMPRESSION });
          if (br.length < raw.length) await fs.writeFile(`${file}.br`, br);
          if (gz.length < raw.length) await fs.writeFile(`${file}.gz`, gz);
        }),
      );
    },
  };
}

/** Libraries kept in their own long-cached chunks; antd is left to the bundler so each route loads only the components it uses. */
function vendorChunk(id: string): string | undefined {
  if (!id.includes('/node_modules/')) return undefined;
  if (id.includes('/node_modules/echarts/') || id.includes('/node_modules/zrender/')) return 'echarts';
  if (/\/node_modules\/(react|react-dom|scheduler)\//.test(id)) return 'react';
  return undefined;
}

/**
 * The shared package's modules only declare schemas and constants: a module none of whose exports a chunk uses is
 * left out, and a schema built with `z.…` that nothing reads is dropped, so a page importing one constant from it
 * does not carry every schema (and zod) along. (Zod's global config is set through zod/v4/core, not `z`.)
 */
const sideEffectFree = (id: string) => id.includes('/packages/shared/src/');

export default defineConfig({
  plugins: [react(), precompress()],
  // One zod for the console and the shared schemas (each package has its own copy in node_modules).
  // react-router's package exports point browsers at its development build (warnings, checks); use the production one.
  resolve: {
    dedupe: ['zod'],
    alias: [
      {
        find: /^react-router$/,
        replacement: path.resolve(import.meta.dirname, '../../node_modules/react-router/dist/production/index.mjs'),
      },
    ],
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000', '/v1': 'http://127.0.0.1:3000', '/pg': 'http://127.0.0.1:3000' },
  },
  build: {
    outDir: 'dist',
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      treeshake: { moduleSideEffects: (id) => !sideEffectFree(id), manualPureFunctions: ['z'] },
      output: { manualChunks: vendorChunk },
    },
  },
});
