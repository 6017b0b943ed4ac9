// A stand-in for fluxdesk's `POST /api/v1/events` on a local node:http server: it answers the
// scripted responses in order (then 202), records every request, and can drop the connection or
// never answer. Not a test file itself (no `.test.ts`).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Reply =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  /** Read the request, then destroy the socket without answering. */
  | { drop: true }
  /** Read the request and never answer (until the server closes). */
  | { hang: true };

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
}

export interface FakeService {
  /** Base address, as FLUXDESK_URL takes it. */
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

let deliveries = 0;

/** A Delivery-shaped 2xx body for the event in the request. */
export function deliveryFor(req: SeenRequest, status: number): Record<string, unknown> {
  return {
    deliveryId: `00000000-0000-4000-8000-${String(++deliveries).padStart(12, '0')}`,
    eventType: req.body?.event_type,
    severity: req.body?.severity,
    title: req.body?.title,
    fireCount: status === 200 ? 2 : 1,
    deduped: status === 200,
    ok: true,
    pushed: false,
    requestId: `req_fake${deliveries}`,
  };
}

export async function startFakeService(script: Reply[] = []): Promise<FakeService> {
  const requests: SeenRequest[] = [];
  const queue = [...script];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, text, body };
      requests.push(seen);
      const reply = queue.shift() ?? { status: 202 };
      if ('drop' in reply) {
        req.socket.destroy();
        return;
      }
      if ('hang' in reply) {
        hanging.add(res);
        return;
      }
      const payload = reply.body ?? (reply.status >= 200 && reply.status < 300 ? deliveryFor(seen, reply.status) : undefined);
      const isProblem = reply.status >= 400;
      res.writeHead(reply.status, {
        'content-type': isProblem ? 'application/problem+json' : 'application/json',
        'x-request-id': `req_fake_${requests.length}`,
        ...reply.headers,
      });
      res.end(payload === undefined ? '' : typeof payload === 'string' ? payload : JSON.stringify(payload));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A problem+json body as the service sends on a validation failure. */
export function validationProblem(fieldErrors: Record<string, string[]>): Record<string, unknown> {
  return {
    type: 'http://fluxdesk.test/errors/validation-failed',
    title: 'Validation failed',
    status: 400,
    detail: 'The request body is invalid',
    instance: '/api/v1/events',
    requestId: 'req_fake_problem',
    fieldErrors,
  };
}

/** A sleep that only records what it was asked for. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  };
}
