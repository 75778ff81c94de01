import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The SDK is compiled from its TypeScript sources, so the pages use exactly the contract of this
// checkout and tree-shake what they do not call.
const sdkSource = fileURLToPath(new URL('../../../libs/sdk/src/index.ts', import.meta.url));

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@svc/sdk': sdkSource } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The budget check reads the manifest to find what the first page loads.
    manifest: true,
    sourcemap: false,
  },
  server: {
    // `pnpm --filter @svc/dashboard-web dev`: pages from Vite, everything else from a running dashboard.
    proxy: Object.fromEntries(
      ['/api', '/auth', '/.well-known'].map((prefix) => [
        prefix,
        { target: 'http://127.0.0.1:3000', changeOrigin: false },
      ]),
    ),
  },
});
