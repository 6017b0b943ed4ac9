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

const bytesOf = async (b: Promise<Buffer>): Promise<Uint8Array<ArrayBuffer>> => {
  const out = await b;
  return out.buffer instanceof ArrayBuffer ? (out as Uint8Array<ArrayBuffer>) : new Uint8Array(out);
};

export const fastGzip: Compression = {
  name: 'gzip',
  compress: (bytes) => bytesOf(gzip(bytes, { level: GZIP_LEVEL })),
  decompress: (bytes, readMaxBytes) => compressionGzip.decompress(bytes, readMaxBytes),
};

export const fastBrotli: Compression = {
  name: 'br',
  compress: (bytes) => bytesOf(brotli(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } })),
  decompress: (bytes, readMaxBytes) => compressionBrotli.decompress(bytes, readMaxBytes),
};
