// The web app's build: Preact + TypeScript, bundled by Vite 8 (Rolldown; JSX through Oxc, no Babel)
// into dist/web: index.html, hashed assets under assets/, and the service worker (public/sw.js,
// copied as is) at the root. Run by scripts/build.mjs (`npm run build`, `npm start` when stale).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  publicDir: 'public',
  logLevel: 'warn',
  clearScreen: false,
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'preact' },
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    // No inline assets: the CSP's img-src/style-src allow files from this origin only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
