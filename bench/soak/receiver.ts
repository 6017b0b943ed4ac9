// The soak's chat-webhook receiver (own process): like bench/receiver.ts it counts POSTs and
// distinct Idempotency-Keys (GET /count), and it also keeps, for each key received more than
// once, when each copy arrived (GET /duplicates), so the soak can tell a duplicate nudge from a
// re-send after a killed node's lease ran out.
import http from 'node:http';

let hits = 0;
/** First arrival (ms since epoch) per key; a second arrival moves the key to `dups`. */
const first = new Map<string, number>();
const dups = new Map<string, number[]>();
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    const body = req.url === '/duplicates' ? { duplicates: [...dups].map(([key, at]) => ({ key, at })) } : { hits, distinct: first.size };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    return;
  }
  req.resume();
  req.on('end', () => {
    hits++;
    const id = req.headers['idempotency-key'];
    if (typeof id === 'string') {
      const now = Date.now();
      const at = first.get(id);
      if (at === undefined) first.set(id, now);
      else dups.set(id, [...(dups.get(id) ?? [at]), now]);
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
