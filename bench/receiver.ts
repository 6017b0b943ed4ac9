// A local chat-webhook receiver for bench.ts ("nudged events" and "drain" scenarios): counts POSTs
// and the distinct idempotency ids; GET /count answers {hits, distinct}. Own process, like the service.
import http from 'node:http';

let hits = 0;
const seen = new Set<string>();
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ hits, distinct: seen.size }));
    return;
  }
  req.resume();
  req.on('end', () => {
    hits++;
    const id = req.headers['idempotency-key'];
    if (typeof id === 'string') seen.add(id);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
