// Response compression of the Connect routes: gzip and brotli at fast settings. connect-node's own
// compressionGzip / compressionBrotli use zlib's defaults (gzip level 6; brotli quality 11, about
// ten times gzip's CPU): a 50-item inbox page then cost more CPU to compress than to list, and a
// client asking for `br` only could make every large answer that expensive. JSON of this API
// compresses about as well at gzip level 1 and brotli quality 4. Requests are decompressed as
// connect-node does (the readMaxBytes bound after decompression included).
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Compression } from '@connectrpc/connect/protocol';
import { compressionBrotli, compressionGzip } from '@connectrpc/connect-node';

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/** zlib level of gzip answers. */
export const GZIP_LEVEL = 1;
/** Brotli quality of br answers. */
export const BROTLI_QUALITY = 4;

/**
 * Answers up to this size are compressed on the event loop (zlib's sync call): at these settings
 * 30 KB (a 50-item inbox page) takes about 70 µs, less than handing it to libuv's thread pool and
 * back (an async call's stream, callbacks and two thread wake-ups cost the service about 0.5 ms of
 * CPU per answer on two cores, and its latency more). Larger ones go to the thread pool, so one
 * answer never holds the event loop long.
 */
export const SYNC_COMPRESS_MAX_BYTES = 128 * 1024;

const bytesOf = (out: Buffer): Uint8Array<ArrayBuffer> => (out.buffer instanceof ArrayBuffer ? (out as Uint8Array<ArrayBuffer>) : new Uint8Array(out));

const GZIP_OPTIONS = { level: GZIP_LEVEL };
const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } };

export const fastGzip: Compression = {
  name: 'gzip',
  compress: async (bytes) => bytesOf(bytes.byteLength <= SYNC_COMPRESS_MAX_BYTES ? zlib.gzipSync(bytes, GZIP_OPTIONS) : await gzip(bytes, GZIP_OPTIONS)),
  decompress: (bytes, readMaxBytes) => compressionGzip.decompress(bytes, readMaxBytes),
};

export const fastBrotli: Compression = {
  name: 'br',
  compress: async (bytes) =>
    bytesOf(bytes.byteLength <= SYNC_COMPRESS_MAX_BYTES ? zlib.brotliCompressSync(bytes, BROTLI_OPTIONS) : await brotli(bytes, BROTLI_OPTIONS)),
  decompress: (bytes, readMaxBytes) => compressionBrotli.decompress(bytes, readMaxBytes),
};
