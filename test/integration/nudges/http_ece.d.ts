// http_ece (the encrypted content-coding web-push uses) ships no types; the tests decrypt with it.
declare module 'http_ece' {
  const ece: { decrypt(buffer: Buffer, params: Record<string, unknown>): Buffer };
  export default ece;
}
