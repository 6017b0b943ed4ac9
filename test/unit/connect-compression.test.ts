// The Connect answers' compression (src/transports/connect/compression.ts): an answer up to
// SYNC_COMPRESS_MAX_BYTES is compressed on the event loop, a larger one in the thread pool; both
// ways give real gzip and brotli that decode to the answer.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fastBrotli, fastGzip, SYNC_COMPRESS_MAX_BYTES } from '../../src/transports/connect/compression.js';

const json = (bytes: number) => {
  const item = JSON.stringify({ id: 'c0ffee00-0000-4000-8000-000000000000', title: 'Build failed on main', summary: 'Step integration tests failed' });
  return new TextEncoder().encode(`[${Array.from({ length: Math.ceil(bytes / (item.length + 1)) }, () => item).join(',')}]`);
};

describe('Connect answer compression', () => {
  it.each([
    ['on the event loop', 30 * 1024],
    ['at the limit', SYNC_COMPRESS_MAX_BYTES],
    ['in the thread pool', SYNC_COMPRESS_MAX_BYTES * 2],
  ])('%s: gzip and br decode to the answer, smaller', async (_, size) => {
    const body = json(size).slice(0, size);
    const gz = await fastGzip.compress(body);
    expect(Buffer.from(gunzipSync(gz)).equals(Buffer.from(body))).toBe(true);
    expect(gz.byteLength).toBeLessThan(body.byteLength / 2);
    const br = await fastBrotli.compress(body);
    expect(Buffer.from(brotliDecompressSync(br)).equals(Buffer.from(body))).toBe(true);
    expect(br.byteLength).toBeLessThan(body.byteLength / 2);
  });
});
