// The ceiling for bench.ts: a bare Fastify route that parses the same JSON body and answers
// {ok:true}. Runs in its own process, like the service, so the comparison is like for like.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/health', async () => ({ ok: true }));
app.post('/api/v1/events', async () => ({ ok: true }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
